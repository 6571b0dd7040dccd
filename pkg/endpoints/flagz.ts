// /flagz, as kube-controller-manager serves it since 1.36 (ComponentFlagz, on by default): every
// flag with the value this process runs with, defaults and deprecated flags included, written
// as pflag writes values. Text for people, or a config.k8s.io Flagz for programs (see
// zpage-forms.ts). It sits behind the same authentication and authorization as /metrics;
// upstream's bootstrap RBAC grants it to the system:monitoring group.
import type { Hono } from "hono";
import { negotiateZpage, notAcceptableResponse, randomZpageDelimiter, structuredResponse, zpageTextResponse } from "./zpage-forms.ts";

const flagzPath = "/flagz";

/** `flags`: flag name → value text; fixed for the process's life, so the text is made once, as upstream caches it. */
export function mountFlagz(app: Hono, name: string, flags: Readonly<Record<string, string>>): void {
  const sorted = Object.fromEntries(Object.keys(flags).sort().map((flag) => [flag, flags[flag] ?? ""]));
  let text: string | undefined;
  app.get(flagzPath, (c) => {
    const form = negotiateZpage(c.req.raw, "Flagz");
    if (form.form === "not-acceptable") return notAcceptableResponse(form);
    if (form.form === "structured") return structuredResponse(form, "Flagz", { metadata: { name }, flags: sorted });
    text ??= flagLines(sorted, randomZpageDelimiter());
    return zpageTextResponse(`${name} flagz`, text);
  });
}

function flagLines(flags: Readonly<Record<string, string>>, delimiter: string): string {
  return Object.entries(flags).map(([flag, value]) => `${flag}${delimiter}${value}\n`).join("");
}
