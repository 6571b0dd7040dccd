// Long-running child processes (etcd, kube-apiserver) that must never outlive the test process.
// Shipped in kube-loom/testing (pkg/testing/daemon-process.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/daemon-process.ts";
