// Writes self-contained kubeconfig files (certificates embedded, so they can be copied anywhere).
// Shipped in kube-loom/testing (pkg/testing/kubeconfig.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/kubeconfig.ts";
