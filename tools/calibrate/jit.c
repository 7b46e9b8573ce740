/*
 * jit.c - generate the dependent-ADD chain (see jit.h).
 *
 * The buffer is written while mapped read-write and then switched to
 * read-execute, so it is never writable and executable at once (W^X).
 */
#include "jit.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define INSN_SIZE 3
static const unsigned char add_insn[3] = { 0x48, 0x01, 0xf7 }; /* add rdi,rsi */
static const unsigned char epilogue[4] = { 0x48, 0x89, 0xf8,    /* mov rax,rdi */
					   0xc3 };              /* ret         */
#elif defined(__aarch64__)
#define INSN_SIZE 4
/* Little-endian encodings: add x0, x0, x1 / ret. */
static const unsigned char add_insn[4] = { 0x00, 0x00, 0x01, 0x8b };
static const unsigned char epilogue[4] = { 0xc0, 0x03, 0x5f, 0xd6 };
#else
#error "sbt-calibrate generates code for x86-64 and Armv8 only"
#endif

int sbt_chain_build(struct sbt_chain *c, uint64_t max_k)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t need, size;
	unsigned char *p;

	memset(c, 0, sizeof *c);
	if (max_k > ((uint64_t)1 << 28)) {
		errno = EINVAL;
		return -1;
	}
	need = (size_t)max_k * INSN_SIZE + sizeof epilogue;
	size = (need + pg - 1) / pg * pg;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (uint64_t i = 0; i < max_k; i++)
		memcpy(p + i * INSN_SIZE, add_insn, INSN_SIZE);
	memcpy(p + max_k * INSN_SIZE, epilogue, sizeof epilogue);
	/* Armv8 has no coherent i-cache: publish the new code explicitly. */
	__builtin___clear_cache((char *)p, (char *)p + need);
	if (mprotect(p, size, PROT_READ | PROT_EXEC) != 0) {
		int e = errno;
		munmap(p, size);
		errno = e;
		return -1;
	}
	c->code = p;
	c->map_size = size;
	c->insn_size = INSN_SIZE;
	c->max_k = max_k;
	c->end = p + max_k * INSN_SIZE;
	return 0;
}

void sbt_chain_free(struct sbt_chain *c)
{
	if (c->code)
		munmap(c->code, c->map_size);
	memset(c, 0, sizeof *c);
}
