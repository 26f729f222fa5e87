// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/toggle.c - per-thread state of the toggles (see tracecost/toggle.h). */
#include <tracecost/toggle.h>

TC_TLS int tc_preempt_count_tls;
TC_TLS unsigned char tc_irqs_disabled_tls;

/* State of the simulated critical section (tracecost/subject.h, --do-work). */
#include <tracecost/subject.h>
TC_TLS unsigned int tc_work_state = 1;
