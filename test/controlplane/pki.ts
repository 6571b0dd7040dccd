// Throwaway PKI for the test control plane, made with the openssl CLI.
// Shipped in kube-loom/testing (pkg/testing/pki.ts); this path stays for the tests that import it.
export * from "../../pkg/testing/pki.ts";
