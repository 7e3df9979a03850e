// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-seqfuzz: one I/O through an io_uring of its own.
 *
 * io_uring submits block I/O from the submitter's context with IOCB_NOWAIT
 * first and, where that would block, again from an io-wq worker: a path
 * into the target (REQ_NOWAIT bios, BLK_STS_AGAIN, a retry from another
 * task) that preadv2() and pwritev2() do not take.  A ring lives for one
 * I/O: the fuzzer's I/O run on threads of their own, and a ring per I/O
 * keeps them apart.  Raw system calls on <linux/io_uring.h>, so that the
 * fuzzer builds with what the tool needs and no more.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "seqfuzz.h"

struct sf_ring {
	int fd;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	struct io_uring_params p;
};

static void ring_close(struct sf_ring *r)
{
	if (r->sqes != MAP_FAILED)
		munmap(r->sqes, r->p.sq_entries * sizeof(*r->sqes));
	if (r->cq != MAP_FAILED && r->cq != r->sq)
		munmap(r->cq, r->cq_len);
	if (r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_len);
	close(r->fd);
}

static int ring_open(struct sf_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->sq = r->cq = r->sqes = MAP_FAILED;
	r->fd = (int)syscall(__NR_io_uring_setup, 1, &r->p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(uint32_t);
	r->cq_len = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	if (r->p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = r->sq_len;
	}
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     r->fd, IORING_OFF_SQ_RING);
	if (r->sq == MAP_FAILED)
		goto fail;
	if (r->p.features & IORING_FEAT_SINGLE_MMAP)
		r->cq = r->sq;
	else
		r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	if (r->cq == MAP_FAILED)
		goto fail;
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(*r->sqes), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	return 0;
fail:
	{
		int e = errno;

		ring_close(r);
		return -e;
	}
}

#define RING_U32(base, off)	((uint32_t *)((char *)(base) + (off)))

/**
 * sf_uring_io - run one read, write or fsync through a new io_uring
 * @fd: the device, opened O_DIRECT
 * @op: IORING_OP_READV, IORING_OP_WRITEV or IORING_OP_FSYNC
 * @buf: @len bytes at @off (not used by fsync)
 * @rw_flags: RWF_NOWAIT, RWF_DSYNC, as preadv2()/pwritev2() take them
 *
 * Return: the completion's result (bytes, or -errno), or -errno where no
 * ring could be set up or the submission failed.
 */
long sf_uring_io(int fd, int op, void *buf, uint64_t len, uint64_t off, int rw_flags)
{
	struct iovec iov = { buf, len };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct sf_ring r;
	uint32_t tail, head;
	long res;
	int e;

	e = ring_open(&r);
	if (e)
		return e;
	sqe = &r.sqes[0];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = (uint8_t)op;
	sqe->fd = fd;
	if (op != IORING_OP_FSYNC) {
		sqe->addr = (uintptr_t)&iov;
		sqe->len = 1;
		sqe->off = off;
		sqe->rw_flags = rw_flags;
	}
	tail = *RING_U32(r.sq, r.p.sq_off.tail);
	RING_U32(r.sq, r.p.sq_off.array)[tail & *RING_U32(r.sq, r.p.sq_off.ring_mask)] = 0;
	__atomic_store_n(RING_U32(r.sq, r.p.sq_off.tail), tail + 1, __ATOMIC_RELEASE);

	do {
		res = syscall(__NR_io_uring_enter, r.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	} while (res < 0 && errno == EINTR);
	if (res < 0) {
		res = -errno;
		goto out;
	}
	head = __atomic_load_n(RING_U32(r.cq, r.p.cq_off.head), __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(RING_U32(r.cq, r.p.cq_off.tail), __ATOMIC_ACQUIRE)) {
		res = -EIO;		/* entered and waited, yet nothing completed */
		goto out;
	}
	cqe = (struct io_uring_cqe *)((char *)r.cq + r.p.cq_off.cqes) +
	      (head & *RING_U32(r.cq, r.p.cq_off.ring_mask));
	res = cqe->res;
	__atomic_store_n(RING_U32(r.cq, r.p.cq_off.head), head + 1, __ATOMIC_RELEASE);
out:
	ring_close(&r);
	return res;
}
