/* SPDX-License-Identifier: GPL-2.0 */
/*
 * docs/compiler-guard.rst: two ways to stop a build for the wrong
 * compiler.  #error prints its words as written; a GCC error pragma made
 * with _Pragma() is built after macro expansion, so it can name the
 * compiler that was found.
 */

#define to_str_(x...)	#x
#define to_str(x...)	to_str_(x)
#define build_error(msg...)	_Pragma(to_str(GCC error to_str(msg)))

#if defined(__clang__)
build_error(clang __clang_major__.__clang_minor__ found; this code needs GCC 12)
#elif __GNUC__ != 12
#error GCC __GNUC__.__GNUC_MINOR__ found; this code needs GCC 12
build_error(GCC __GNUC__.__GNUC_MINOR__.__GNUC_PATCHLEVEL__ found; this code needs GCC 12)
#endif

int guard_passed;
