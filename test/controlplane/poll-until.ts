// Bounded start-up waits for the processes the harness starts.
// Shipped in kube-loom/testing (pkg/testing/poll-until.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/poll-until.ts";
