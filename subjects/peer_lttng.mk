# SPDX-License-Identifier: GPL-2.0-or-later
#
# subjects/peer_lttng.mk - the lttng peer's build rules of its own, included
# by the Makefile: the flags of its column objects, the tracepoint
# definitions linked into tracecost (lttng_define.c, dynamic linkage) and
# the provider's probes, build/peers/libtracecost-lttng.so (lttng_provider.c
# with liblttng-ust), dlopen()ed by src/peer_lttng.c and installed in
# $(LIBDIR)/tracecost. Only when the peer is built (subjects/peers.def).
PEER_LIB_NAMES	+= libtracecost-lttng.so
ifneq ($(filter lttng,$(PEERS_BUILT)),)
peer_cflags_lttng := $(shell $(PKG_CONFIG) --cflags lttng-ust)
PEER_OBJS	+= $(O)/subjects/lttng_define.o
PEER_LIBS	+= $(O)/peers/libtracecost-lttng.so

$(O)/subjects/lttng_define.o: subjects/lttng_define.c subjects/tc_lttng_tp.h Makefile
	@mkdir -p $(dir $@)
	$(quiet) CC $(@:$(O)/%=%)
	$(Q)$(CC) $(ALL_CFLAGS) -I. $(peer_cflags_lttng) -Wno-missing-prototypes -c $< -o $@

$(O)/peers/libtracecost-lttng.so: subjects/lttng_provider.c subjects/tc_lttng_tp.h Makefile
	@mkdir -p $(dir $@)
	$(quiet) LD $(@:$(O)/%=%)
	$(Q)$(CC) $(BASE_CFLAGS) $(OPTFLAGS) -I. -fPIC -shared -o $@ $< \
		$(shell $(PKG_CONFIG) --libs lttng-ust 2>/dev/null)
endif

# where src/peer_lttng.c looks for the provider after build/peers/
$(O)/src/peer_lttng.o: ALL_CFLAGS += -DTC_PEER_LIBDIR='"$(LIBDIR)/tracecost"'
$(O)/src/peer_lttng.o: subjects/tc_lttng_tp.h
