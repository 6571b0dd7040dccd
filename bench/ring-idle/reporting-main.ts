// kube-loom as ring-idle.ts runs it: the real program, with heap-report.ts loaded first.
import "./heap-report.ts";
import "../../cmd/kube-loom/main.ts";
