// Asks the kernel for unused loopback ports.
// Shipped in kube-loom/testing (pkg/testing/free-ports.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/free-ports.ts";
