// Temp folders for control planes, in RAM (/dev/shm) where available. Each one holds ~120 MB
// Shipped in kube-loom/testing (pkg/testing/owned-temp-dir.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/owned-temp-dir.ts";
