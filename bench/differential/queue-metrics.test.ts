import { expect, test } from "bun:test";
import { isIdle, parseQueueActivity } from "./queue-metrics.ts";

test("queue activity sums every queue's depth, unfinished work and retries, and ignores the rest", () => {
  const text = [
    "# HELP workqueue_depth Current depth of workqueue",
    "# TYPE workqueue_depth gauge",
    'workqueue_depth{name="garbage_collector_attempt_to_delete"} 2',
    'workqueue_depth{name="garbage_collector_graph_changes"} 1',
    'workqueue_unfinished_work_seconds{name="replicaset"} 0.25',
    'workqueue_retries_total{name="garbage_collector_attempt_to_delete"} 7',
    'workqueue_retries_total{name="replicaset"} 3',
    'workqueue_adds_total{name="replicaset"} 40',
    "workqueue_depth_other 9",
  ].join("\n");
  const activity = parseQueueActivity(text);
  expect(activity).toEqual({ queued: 3, inProgressSeconds: 0.25, retries: 10 });
  expect(isIdle(activity)).toBe(false);
  expect(isIdle(parseQueueActivity('workqueue_depth{name="a"} 0\nworkqueue_retries_total{name="a"} 5'))).toBe(true);
});
