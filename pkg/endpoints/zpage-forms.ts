// The forms /statusz and /flagz answer in, and how one is picked, as kube-controller-manager's
// z-pages pick it through the API server's content negotiation (component-base zpages,
// apiserver's negotiation): without an Accept header, or for a clause that admits text/plain
// without parameters, text meant for people; JSON or YAML only for a clause that names the
// structured kind exactly (application/json;as=Statusz;v=v1beta1;g=config.k8s.io); anything else
// 406 with a v1 Status listing the accepted media types.
import { stringify as stringifyYaml } from "yaml";

/** The API group of the structured z-pages. */
const zpageGroup = "config.k8s.io";
/** v1alpha1 is still served, with a deprecation warning, as upstream serves it. */
const zpageVersions = ["v1beta1", "v1alpha1"] as const;
const deprecatedVersions: ReadonlySet<string> = new Set(["v1alpha1"]);

type StructuredMediaType = "application/json" | "application/yaml";

export type ZpageForm =
  | { form: "text" }
  | { form: "structured"; mediaType: StructuredMediaType; version: string; pretty: boolean }
  | { form: "not-acceptable"; errorMediaType: StructuredMediaType | undefined };

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: ReadonlyMap<string, string>;
}

// Upstream's order: its JSON and YAML serializers come before the text one.
const offered = [
  { type: "application", subType: "json" },
  { type: "application", subType: "yaml" },
  { type: "text", subType: "plain" },
] as const;

/** The form `kind` ("Statusz", "Flagz") is answered in for this request. */
export function negotiateZpage(request: Request, kind: string): ZpageForm {
  const accept = request.headers.get("accept") ?? "";
  if (accept.trim() === "") return { form: "text" };
  for (const clause of parseAccept(accept)) {
    for (const media of offered) {
      if (!matches(clause, media)) continue;
      const target = convertTarget(clause.params);
      if (asksForStream(clause.params)) continue;
      if (media.subType === "plain") {
        if (target === undefined) return { form: "text" };
        continue;
      }
      const version = target && recognizedVersion(target, kind);
      if (version === undefined) continue;
      const pretty = clause.params.get("pretty") === "1" || prettyByRequest(request);
      return { form: "structured", mediaType: `application/${media.subType}`, version, pretty };
    }
  }
  return { form: "not-acceptable", errorMediaType: errorMediaType(accept) };
}

/** The structured answer: `object` with its kind and apiVersion, in the negotiated media type. */
export function structuredResponse(form: Extract<ZpageForm, { form: "structured" }>, kind: string, object: Record<string, unknown>): Response {
  const typed = { kind, apiVersion: `${zpageGroup}/${form.version}`, ...object };
  const headers = new Headers({ "Content-Type": `${form.mediaType};g=${zpageGroup};v=${form.version};as=${kind}` });
  if (deprecatedVersions.has(form.version)) {
    headers.set("Warning", `299 - "${form.version} of the ${kind.toLowerCase()} endpoint is deprecated; ask for ${zpageVersions[0]}."`);
  }
  return new Response(encode(typed, form.mediaType, form.pretty), { status: 200, headers });
}

/** 406 with a v1 Status, encoded as the client's Accept allows, else as indented JSON (upstream's fallback). */
export function notAcceptableResponse(form: Extract<ZpageForm, { form: "not-acceptable" }>): Response {
  const accepted = offered.map((media) => `${media.type}/${media.subType}`).join(", ");
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `only the following media types are accepted: ${accepted}`,
    reason: "NotAcceptable",
    code: 406,
  };
  const mediaType = form.errorMediaType ?? "application/json";
  const body = form.errorMediaType === undefined ? JSON.stringify(status, null, 2) : encode(status, mediaType, false);
  return new Response(body, { status: 406, headers: { "Content-Type": mediaType } });
}

/** goautoneg's reading of an Accept header: clauses by falling q, specific types before wildcards. */
function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(",")) {
    const [range = "", ...parameters] = part.trim().split(";");
    const [type = "", subType, extra] = range.split("/").map((word) => word.trim());
    if (extra !== undefined || (subType === undefined && type !== "*")) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const parameter of parameters) {
      const [key, value, more] = parameter.split("=");
      if (value === undefined || more !== undefined) continue;
      if (key?.trim() === "q") q = Number.parseFloat(value) || 0;
      else params.set(key?.trim() ?? "", value.trim());
    }
    clauses.push({ type, subType: subType ?? "*", q, params });
  }
  const wildcard = (word: string) => (word === "*" ? 1 : 0);
  return clauses.sort((a, b) => b.q - a.q || wildcard(a.type) - wildcard(b.type) || wildcard(a.subType) - wildcard(b.subType));
}

function matches(clause: AcceptClause, media: (typeof offered)[number]): boolean {
  if (clause.type === "*" && clause.subType === "*") return true;
  return clause.type === media.type && (clause.subType === media.subType || clause.subType === "*");
}

/** The kind, group and version asked for with `as`, `g` and `v`; undefined when none is given. */
function convertTarget(params: ReadonlyMap<string, string>): { kind: string; group: string; version: string } | undefined {
  if (!params.has("as") && !params.has("g") && !params.has("v")) return undefined;
  return { kind: params.get("as") ?? "", group: params.get("g") ?? "", version: params.get("v") ?? "" };
}

/** A watch stream or another server version cannot be had here. */
function asksForStream(params: ReadonlyMap<string, string>): boolean {
  return (params.get("stream") ?? "") !== "" || (params.get("sv") ?? "") !== "";
}

function recognizedVersion(target: { kind: string; group: string; version: string }, kind: string): string | undefined {
  const known = (zpageVersions as readonly string[]).includes(target.version);
  return target.kind === kind && target.group === zpageGroup && known ? target.version : undefined;
}

/** Upstream pretty-prints for ?pretty=true and for curl, Wget and browsers. */
function prettyByRequest(request: Request): boolean {
  const pretty = new URL(request.url).searchParams.get("pretty");
  if (pretty) return ["1", "t", "T", "true", "TRUE", "True"].includes(pretty);
  const agent = request.headers.get("user-agent") ?? "";
  return agent.startsWith("curl") || agent.startsWith("Wget") || agent.startsWith("Mozilla/5.0");
}

/** Which structured type a 406 is written in: the first clause that admits JSON or YAML without asking for a kind. */
function errorMediaType(accept: string): StructuredMediaType | undefined {
  for (const clause of parseAccept(accept)) {
    if (convertTarget(clause.params) !== undefined || asksForStream(clause.params)) continue;
    for (const media of offered) {
      if (media.subType !== "plain" && matches(clause, media)) return `application/${media.subType}`;
    }
  }
  return undefined;
}

/** Go's encoders: compact JSON with a newline, indented JSON without one, YAML with sorted keys. */
function encode(object: Record<string, unknown>, mediaType: StructuredMediaType, pretty: boolean): string {
  if (mediaType === "application/yaml") return stringifyYaml(object, { sortMapEntries: true, indentSeq: false });
  return pretty ? JSON.stringify(object, null, 2) : `${JSON.stringify(object)}\n`;
}

/**
 * The text form: a title and a warning, then the page's `key<delimiter>value` lines. Upstream
 * picks the delimiter at random among these, so that nobody comes to rely on parsing the text.
 */
export function zpageTextResponse(title: string, body: string): Response {
  const header = `\n${title}\nWarning: this text is for people and may change in any release; programs should ask for the structured form (Accept: application/json;as=<Kind>;v=v1beta1;g=${zpageGroup}).\n`;
  return new Response(header + body, { status: 200, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export function randomZpageDelimiter(): string {
  const delimiters = [":", ": ", "=", " "];
  return delimiters[Math.floor(Math.random() * delimiters.length)] ?? ":";
}
