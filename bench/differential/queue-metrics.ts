// How busy a controller manager's work queues are, from its /metrics: both kube-controller-manager
// and kube-loom export client-go's workqueue_* metrics under the same names. Items queued or in a
// worker's hands mean work to come; a retry counter that moved means an item went back to wait.

export interface QueueActivity {
  /** workqueue_depth summed over every queue. */
  queued: number;
  /** workqueue_unfinished_work_seconds summed: nonzero while any worker holds an item. */
  inProgressSeconds: number;
  /** workqueue_retries_total summed. */
  retries: number;
}

const sample = /^(workqueue_depth|workqueue_unfinished_work_seconds|workqueue_retries_total)(?:\{[^}]*\})?\s+(\S+)/;

export function parseQueueActivity(metricsText: string): QueueActivity {
  const activity: QueueActivity = { queued: 0, inProgressSeconds: 0, retries: 0 };
  for (const line of metricsText.split("\n")) {
    const match = sample.exec(line);
    if (!match) continue;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    if (match[1] === "workqueue_depth") activity.queued += value;
    else if (match[1] === "workqueue_unfinished_work_seconds") activity.inProgressSeconds += value;
    else activity.retries += value;
  }
  return activity;
}

export function isIdle(activity: QueueActivity): boolean {
  return activity.queued === 0 && activity.inProgressSeconds === 0;
}
