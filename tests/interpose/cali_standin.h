/*
 * cali_standin.h - Caliper's C annotation API as the test app sees it.
 *
 * Caliper is not a Debian package, so the test app links a small
 * stand-in library (cali_standin.c) with the same C signatures and data
 * symbols as libcaliper 2.x (include/caliper/cali.h, common/cali_types.h),
 * and the macros below expand to the same calls as Caliper's
 * cali_macros.h does (written from its documented expansions).  Under
 * the preload, libsbtmark.so records each of these calls and passes it
 * on to the library.
 */
#ifndef CALI_STANDIN_H
#define CALI_STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t cali_id_t;
#define CALI_INV_ID 0xFFFFFFFFFFFFFFFFull
typedef enum { CALI_TYPE_INV = 0, CALI_TYPE_INT = 2, CALI_TYPE_STRING = 4,
	       CALI_TYPE_BOOL = 7 } cali_attr_type;
#define CALI_ATTR_DEFAULT 0
#define CALI_ATTR_NESTED  256

extern cali_id_t cali_loop_attr_id;

void cali_init(void);
void cali_begin_region(const char *name);
void cali_end_region(const char *name);
void cali_begin_phase(const char *name);
void cali_end_phase(const char *name);
void cali_begin_comm_region(const char *name);
void cali_end_comm_region(const char *name);
void cali_begin(cali_id_t attr);
void cali_begin_int(cali_id_t attr, int val);
void cali_begin_double(cali_id_t attr, double val);
void cali_begin_string(cali_id_t attr, const char *val);
void cali_end(cali_id_t attr);
void cali_safe_end_string(cali_id_t attr, const char *val);
void cali_begin_byname(const char *attr_name);
void cali_begin_int_byname(const char *attr_name, int val);
void cali_begin_string_byname(const char *attr_name, const char *val);
void cali_end_byname(const char *attr_name);
cali_id_t cali_create_attribute(const char *name, cali_attr_type type,
				int properties);
cali_id_t cali_find_attribute(const char *name);
const char *cali_attribute_name(cali_id_t attr);
cali_id_t cali_make_loop_iteration_attribute(const char *name);

#define CALI_MARK_FUNCTION_BEGIN cali_begin_region(__func__)
#define CALI_MARK_FUNCTION_END cali_end_region(__func__)
#define CALI_MARK_BEGIN(name) cali_begin_region(name)
#define CALI_MARK_END(name) cali_end_region(name)
#define CALI_MARK_PHASE_BEGIN(name) cali_begin_phase(name)
#define CALI_MARK_PHASE_END(name) cali_end_phase(name)
#define CALI_MARK_COMM_REGION_BEGIN(name) cali_begin_comm_region(name)
#define CALI_MARK_COMM_REGION_END(name) cali_end_comm_region(name)
#define CALI_MARK_LOOP_BEGIN(loop_id, name)                              \
	if (cali_loop_attr_id == CALI_INV_ID)                            \
		cali_init();                                             \
	cali_begin_string(cali_loop_attr_id, (name));                    \
	cali_id_t __cali_iter_##loop_id =                                \
		cali_make_loop_iteration_attribute(name)
#define CALI_MARK_LOOP_END(loop_id) cali_end(cali_loop_attr_id)
#define CALI_MARK_ITERATION_BEGIN(loop_id, iter)                         \
	cali_begin_int(__cali_iter_##loop_id, ((int)(iter)))
#define CALI_MARK_ITERATION_END(loop_id) cali_end(__cali_iter_##loop_id)

#endif
