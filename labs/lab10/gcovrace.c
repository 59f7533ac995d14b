// SPDX-License-Identifier: GPL-2.0
/*
 * gcovrace - every online CPU calls the same function at the same time
 *
 * Lab 10 of gcov-kernel-labs: one kernel thread per online CPU waits for
 * a common start, then calls gcovrace_hit() "calls" times.  The module
 * knows how many calls were made in all and prints it; the .gcda file
 * says how many the function's gcov counter saw.  With plain counter
 * updates (a load, an add and a store) two CPUs can both load the same
 * old value, and one increment is lost; with
 * -fprofile-update=prefer-atomic the counts agree.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

static unsigned int calls = 1000000;
module_param(calls, uint, 0444);
MODULE_PARM_DESC(calls, "calls of gcovrace_hit() per CPU (default 1000000)");

static atomic_t waiting;
static atomic_t running;
static DECLARE_COMPLETION(ready);
static DECLARE_COMPLETION(start);
static DECLARE_COMPLETION(finished);

/* The contended function: its gcov counter is what the CPUs race on. */
static noinline void gcovrace_hit(unsigned long *mine)
{
	WRITE_ONCE(*mine, *mine + 1);
}

static int gcovrace_thread(void *unused)
{
	unsigned long mine = 0;
	unsigned int i;

	if (atomic_dec_and_test(&waiting))
		complete(&ready);
	wait_for_completion(&start);
	for (i = 0; i < calls; i++)
		gcovrace_hit(&mine);
	pr_info("CPU %d made %lu calls\n", raw_smp_processor_id(), mine);
	if (atomic_dec_and_test(&running))
		complete(&finished);
	return 0;
}

static int __init gcovrace_init(void)
{
	unsigned int cpus = num_online_cpus();
	struct task_struct **threads;
	unsigned int cpu, other;

	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	atomic_set(&waiting, cpus);
	atomic_set(&running, cpus);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create(gcovrace_thread, NULL, "gcovrace/%u", cpu);
		if (IS_ERR(t)) {
			/* Threads never woken stop without running. */
			for_each_online_cpu(other)
				if (threads[other])
					kthread_stop(threads[other]);
			kfree(threads);
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		threads[cpu] = t;
	}
	for_each_online_cpu(cpu)
		wake_up_process(threads[cpu]);
	kfree(threads);

	/* Every thread is up and waiting: let them all go at once. */
	wait_for_completion(&ready);
	complete_all(&start);
	wait_for_completion(&finished);
	pr_info("%u CPUs x %u calls = %llu calls of gcovrace_hit()\n",
		cpus, calls, (unsigned long long)cpus * calls);
	return 0;
}
module_init(gcovrace_init);

static void __exit gcovrace_exit(void)
{
}
module_exit(gcovrace_exit);

MODULE_DESCRIPTION("Concurrent calls of one function, for gcov counter races");
MODULE_LICENSE("GPL");
