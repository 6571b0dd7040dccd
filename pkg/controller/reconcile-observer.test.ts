import { expect, test } from "bun:test";
import { combinedReconcileObserver, type ReconcileObserver } from "./reconcile-observer.ts";

function recording(name: string, heard: string[]): ReconcileObserver {
  return {
    finished: (loop, key, outcome, seconds, error) => void heard.push(`${name} finished ${loop} ${String(key)} ${outcome} ${seconds} ${String(error)}`),
    panicked: (loop) => void heard.push(`${name} panicked ${loop}`),
    setActiveWorkers: (loop, count) => void heard.push(`${name} active ${loop} ${count}`),
    setMaxConcurrentReconciles: (loop, count) => void heard.push(`${name} max ${loop} ${count}`),
  };
}

test("a combined observer tells every observer everything, in the order given", () => {
  const heard: string[] = [];
  const both = combinedReconcileObserver(recording("metrics", heard), recording("status", heard));
  both.setMaxConcurrentReconciles("rs", 5);
  both.setActiveWorkers("rs", 1);
  both.panicked("rs");
  both.finished("rs", "ns/web", "error", 0.5, "boom");
  expect(heard).toEqual([
    "metrics max rs 5",
    "status max rs 5",
    "metrics active rs 1",
    "status active rs 1",
    "metrics panicked rs",
    "status panicked rs",
    "metrics finished rs ns/web error 0.5 boom",
    "status finished rs ns/web error 0.5 boom",
  ]);
});
