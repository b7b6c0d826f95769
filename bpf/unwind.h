/* SPDX-License-Identifier: MIT */
/*
 * bpf/unwind.h - the unwind table rows shared by elf/cfi.c (which builds
 * them from a binary's .eh_frame or .debug_frame) and the BPF walker
 * (which follows them, one row per frame). x86-64 only for now.
 *
 * A binary's table is an array of rows sorted by `off`; a row holds from
 * its `off` up to the next row's. Offsets are FILE offsets in the binary
 * (not ELF virtual addresses), because that is what the BPF side can
 * compute from a VMA: off = pc - vm_start + (vm_pgoff << PAGE_SHIFT).
 * Gaps in the CFI (between two FDEs) are rows of type UNW_CFA_NONE, so a
 * PC that no FDE covers never inherits the rule of the FDE before it.
 *
 * Like events.h, it includes nothing itself: *.bpf.c include it after
 * vmlinux.h, user space after <linux/types.h>. Any layout change bumps
 * UNW_ABI_VERSION.
 */
#ifndef EPROF_BPF_UNWIND_H
#define EPROF_BPF_UNWIND_H

#define UNW_ABI_VERSION	4	/* 4: UNW_CFA_RA_RDI, UNW_CFA_ABSENT */

/*
 * The flags of every table map: inner maps (sizes differ), and mappable, so
 * that record/ follows the very rows the walker does when it finishes a
 * raw-stack sample (record/rawstack.c) without a copy. The template in
 * unwind.bpf.h and every table record/ creates must carry the same flags:
 * the kernel refuses an inner map whose flags differ from the template's.
 */
#define UNW_TABLE_MAP_FLAGS	(BPF_F_INNER_MAP | BPF_F_MMAPABLE)

/* How to find the canonical frame address (CFA) at a PC. */
enum unw_cfa {
	UNW_CFA_NONE = 0,	/* no CFI covers this PC: take a frame-pointer step */
	UNW_CFA_RSP,		/* CFA = rsp + cfa_off */
	UNW_CFA_RBP,		/* CFA = rbp + cfa_off */
	UNW_CFA_PLT,		/* PLT stub: CFA = rsp + 8, plus 8 when (rip & 15) >= cfa_off */
	UNW_CFA_SIGNAL,		/* sigreturn trampoline: rsp, rbp, rip come from the
				   ucontext at rsp (x86-64: uc_mcontext at rsp + 40) */
	UNW_CFA_END,		/* return address undefined: the outermost frame
				   (_start, clone3's child): the stack is complete */
	UNW_CFA_RBX,		/* CFA = rbx + cfa_off: code that keeps its frame
				   base in rbx while it realigns rsp (ld.so's lazy
				   binding, _dl_runtime_resolve_xsavec) */
	UNW_CFA_UNSUPPORTED,	/* CFI exists but uses a rule the walker cannot
				   follow (another register, an expression): FP step */
	UNW_CFA_RA_RDI,		/* CFA = rsp + cfa_off, and the return address is
				   in rdi (glibc's vfork, across its syscall):
				   known in the interrupted frame only */
	UNW_CFA_ABSENT,		/* a big binary's table holds only the windows of
				   code walks have met (record/unwind.c, "partial
				   tables"); this one is not in yet: the walker
				   reports the window (unw_absent) and steps as for
				   a table not built yet */
	UNW_CFA_WINDOWED,	/* row 0 of a partial table (never a row found):
				   its off windows' slots follow, then their rows */
};

/* A partial table loads its binary's rows by windows of file offsets this large. */
#define UNW_WINDOW_SHIFT	16

/*
 * A partial table's layout (record/unwind.c): row 0 is
 * { .off = W, .cfa_type = UNW_CFA_WINDOWED }; rows 1 .. W are the slots of
 * windows 0 .. W - 1, whose first 8 bytes read as one __u64 are the index
 * of the window's first row (low half) and its number of rows (high half;
 * 0: not in yet, ABSENT); the rows follow, each window's contiguous and
 * increasing, its first starting at the window's start. Rows are appended
 * and a slot then written in one store, so a walker reading at any moment
 * sees a window whole or not at all.
 */
struct unw_slot {
	__u32 first;
	__u32 count;
	__u64 pad;
};

/* Where the caller's rbp (or rbx: the same rules) is. */
enum unw_rbp {
	UNW_RBP_SAME = 0,	/* unchanged (not saved by this frame) */
	UNW_RBP_CFA,		/* saved at CFA + rbp_off */
	UNW_RBP_UNDEF,		/* not recoverable: later RBP-based rules fail */
};

/*
 * One row, 16 bytes (what a BPF array takes for 12 anyway). The return
 * address is always at CFA - 8 on x86-64 (a row whose CFI says otherwise is
 * UNW_CFA_UNSUPPORTED), and the caller's rsp is the CFA. rbx is followed
 * like rbp, for the few functions whose CFA is rbx-based.
 */
struct unw_row {
	__u32 off;		/* first file offset this row covers */
	__u8 cfa_type;		/* enum unw_cfa */
	__u8 rbp_type;		/* enum unw_rbp */
	__s16 rbp_off;		/* UNW_RBP_CFA: caller's rbp at CFA + rbp_off */
	__s32 cfa_off;		/* UNW_CFA_RSP/RBP/RBX: offset; UNW_CFA_PLT: threshold */
	__u8 rbx_type;		/* enum unw_rbp, for rbx */
	__u8 pad;
	__s16 rbx_off;		/* UNW_RBP_CFA: caller's rbx at CFA + rbx_off */
};

#endif
