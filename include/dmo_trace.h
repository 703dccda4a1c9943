/* dmo_trace.h: mark one layer of your own program for `dmo trace`.
 *
 * `dmo trace -- PROGRAM ARGS...` runs PROGRAM under Valgrind's lackey tool,
 * which logs every instruction, load and store. Put these markers around
 * the call that computes one layer; dmo keeps only the loads from the
 * input buffer and the stores into the output buffer made between them and
 * derives the layer's safe overlap O_s (bytes by which the end of the
 * output may overlap the start of the input) from their order:
 *
 *     #include "dmo_trace.h"
 *     DMO_TRACE_LAYER_BEGIN("conv1", input, input_bytes, output, output_bytes);
 *     my_conv(input, weights, output);
 *     DMO_TRACE_LAYER_END("conv1");
 *
 * - `name` is a C string without newlines; BEGIN and END must name the same
 *   layer, and layers must not nest.
 * - The pointers are the first bytes of the two buffers, the sizes their
 *   lengths in bytes.
 * - The markers are Valgrind client requests (VALGRIND_PRINTF from Debian's
 *   valgrind headers, package valgrind), written into Valgrind's log in
 *   order with lackey's trace lines. Outside Valgrind they do nothing and
 *   cost a few instructions. Without <valgrind/valgrind.h>, with NVALGRIND
 *   or with DMO_TRACE_DISABLE defined they compile to nothing (the arguments
 *   are not evaluated).
 * - C99 or later, and C++.
 */
#ifndef DMO_TRACE_H
#define DMO_TRACE_H

#if !defined(DMO_TRACE_DISABLE) && !defined(NVALGRIND) && defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <stdint.h>
#include <valgrind/valgrind.h>
#define DMO_TRACE_ENABLED 1
#endif
#endif

#ifdef DMO_TRACE_ENABLED

/* The log line dmo parses: DMO_TRACE_BEGIN <input hex> <input bytes>
 * <output hex> <output bytes> <name>, then DMO_TRACE_END <name>. */
#define DMO_TRACE_LAYER_BEGIN(name, input_ptr, input_bytes, output_ptr, output_bytes)                 \
  ((void)VALGRIND_PRINTF("DMO_TRACE_BEGIN %lx %lu %lx %lu %s\n",                                      \
                         (unsigned long)(uintptr_t)(const void*)(input_ptr), (unsigned long)(input_bytes), \
                         (unsigned long)(uintptr_t)(const void*)(output_ptr), (unsigned long)(output_bytes), \
                         (const char*)(name)))

#define DMO_TRACE_LAYER_END(name) ((void)VALGRIND_PRINTF("DMO_TRACE_END %s\n", (const char*)(name)))

#else

#define DMO_TRACE_LAYER_BEGIN(name, input_ptr, input_bytes, output_ptr, output_bytes) \
  ((void)sizeof(name), (void)sizeof(input_ptr), (void)sizeof(input_bytes), (void)sizeof(output_ptr), \
   (void)sizeof(output_bytes))

#define DMO_TRACE_LAYER_END(name) ((void)sizeof(name))

#endif

#endif /* DMO_TRACE_H */
