/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STRESS_SHARED_H
#define STRESS_SHARED_H

unsigned int stress_work(unsigned int rounds);

#endif
