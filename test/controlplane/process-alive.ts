// Whether a process id still names a live process (for pid files left by processes that died).
// Shipped in kube-loom/testing (pkg/testing/process-alive.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/process-alive.ts";
