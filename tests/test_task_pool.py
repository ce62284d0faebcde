"""lantern.task_pool on this machine: follow-up tasks (the callers' retries), failures named, a stop,
a dead worker process, the ETA. The Ray engine is tested on a two-node cluster in test_suite_ray.py."""

from __future__ import annotations

import io
import os
import threading

from lantern.task_pool import CANCELLED, ERROR, LOST, OK, LocalPool, Progress, Resources, Task, TaskResult


def square(x: int) -> int:
    return x * x


def fail(x: int) -> int:
    raise ValueError(f"bad input {x}")


def die(_x: int) -> int:
    os._exit(9)  # the worker process dies under the task


def test_resources_become_ray_options():
    assert Resources().ray_options() == {"num_cpus": 1.0, "num_gpus": 0.0}
    assert Resources(2.0, 0.5, (("carla_server", 1.0),)).ray_options() == {"num_cpus": 2.0, "num_gpus": 0.5, "resources": {"carla_server": 1.0}}


def test_results_errors_and_follow_ups():
    """on_done answers a failure with a retry task; every execution is one result."""
    seen: list[TaskResult] = []

    def on_done(r: TaskResult) -> list[Task]:
        seen.append(r)
        if r.status == ERROR and r.key == "b":
            return [Task("b", square, (5,))]  # the caller's retry
        return []

    res = LocalPool(workers=2).run([Task("a", square, (3,)), Task("b", fail, (4,))], on_done)
    by = {(r.key, r.status): r for r in res}
    assert by[("a", OK)].value == 9
    assert by[("b", ERROR)].error == "ValueError: bad input 4"
    assert by[("b", OK)].value == 25
    assert len(res) == 3 and [r.key for r in seen] == [r.key for r in res]


def test_a_stop_cancels_what_has_not_started():
    stop = threading.Event()
    gate = threading.Event()

    def slow(x: int) -> int:
        stop.set()  # the stop comes while the first task runs
        gate.wait(5)
        return x

    gate.set()
    res = LocalPool(workers=1).run([Task("a", slow, (1,)), Task("b", square, (2,)), Task("c", square, (3,))], stop=stop)
    assert {(r.key, r.status, r.started) for r in res} == {("a", OK, True), ("b", CANCELLED, False), ("c", CANCELLED, False)}


def test_a_dead_worker_process_is_lost_and_the_rest_still_run():
    res = LocalPool(workers=1, processes=True).run([Task("dead", die, (0,)), Task("after", square, (7,))])
    by = {r.key: r for r in res}
    assert by["dead"].status == LOST and "worker process died" in by["dead"].error
    assert by["after"].status == OK and by["after"].value == 49


def test_progress_eta_from_the_mean_time_of_finished_tasks():
    now = [100.0]
    buf = io.StringIO()
    p = Progress(5, buf, clock=lambda: now[0])
    now[0] = 104.0
    p.tick("r1 completed")
    now[0] = 110.0
    p.tick("r2 infrastructure_failure", failed=True)
    last = buf.getvalue().splitlines()[-1]
    # 10 s for 2 tasks -> 5 s each; 3 left -> ETA 15 s
    assert "2/5 runs" in last and "10s elapsed" in last and "ETA    15s" in last and "infra failures 1" in last
    assert last.endswith("last: r2 infrastructure_failure")
    assert last.startswith("[############")  # 2/5 of 30 columns
