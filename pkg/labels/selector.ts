// Label selectors, as apimachinery's labels package and metav1.LabelSelectorAsSelector define them:
// the string form used in list options (`a=b,c!=d,e in (f,g),!h,i`) and the object form
// (`matchLabels` / `matchExpressions`) used by ReplicaSets, Services and friends.

export type Labels = Readonly<Record<string, string>>;

/** metav1.LabelSelector; client-node's V1LabelSelector fits this shape. */
export interface LabelSelector {
  /** Labels that must be present with exactly these values. */
  matchLabels?: Record<string, string>;
  /** Further conditions, all of which must hold. */
  matchExpressions?: {
    /** The label's key. */
    key: string;
    /** In, NotIn, Exists or DoesNotExist. */
    operator: string;
    /** The values for In and NotIn; none for Exists and DoesNotExist. */
    values?: string[];
  }[];
}

/** How a requirement compares a label: set membership, presence, or (Gt, Lt) as an integer. */
export type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** One condition on one label; a selector matches when all of its requirements do. */
export interface Requirement {
  /** The label's key. */
  readonly key: string;
  /** The comparison. */
  readonly operator: Operator;
  /** The values compared with; empty for Exists and DoesNotExist. */
  readonly values: readonly string[];
}

/**
 * A label selector, as the listers take it. Any object of this shape works:
 * `{ requirements: [], matches: (labels) => labels?.app === "web" }`.
 */
export interface Selector {
  /** The conditions, for display and for handing to the server; `matches` decides. */
  readonly requirements: readonly Requirement[];
  /** True when `labels` (an object's metadata.labels) are selected. */
  matches(labels: Labels | undefined): boolean;
}

/** Parses the string form; throws SyntaxError on malformed input. "" selects everything. */
export function parseSelector(text: string): Selector {
  return selectorOf(new SelectorParser(text).parse());
}

/** Converts the object form. `undefined` selects nothing and `{}` selects everything, as in Kubernetes. */
export function selectorFromLabelSelector(selector: LabelSelector | undefined): Selector {
  if (!selector) return nothingSelector;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) requirements.push(requirement(key, "In", [value]));
  for (const expression of selector.matchExpressions ?? []) {
    if (!isSetOperator(expression.operator)) throw new SyntaxError(`label selector: unsupported operator "${expression.operator}"`);
    requirements.push(requirement(expression.key, expression.operator, expression.values ?? []));
  }
  return selectorOf(requirements);
}

const nothingSelector: Selector = { requirements: [], matches: () => false };

function selectorOf(requirements: Requirement[]): Selector {
  return { requirements, matches: (labels) => requirements.every((r) => requirementMatches(r, labels ?? {})) };
}

function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case "In":
      return has && r.values.includes(value ?? "");
    case "NotIn":
      return !has || !r.values.includes(value ?? "");
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    case "Gt":
    case "Lt": {
      if (!has || !/^-?\d+$/.test(value ?? "")) return false;
      const actual = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === "Gt" ? actual > bound : actual < bound;
    }
  }
}

function isSetOperator(op: string): op is "In" | "NotIn" | "Exists" | "DoesNotExist" {
  return op === "In" || op === "NotIn" || op === "Exists" || op === "DoesNotExist";
}

// Qualified names (`prefix/name`, prefix a DNS subdomain) and label values, as validation.IsQualifiedName/IsValidLabelValue.
const namePart = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validKey(key: string): boolean {
  const slash = key.indexOf("/");
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  if (prefix !== undefined && (prefix.length > 253 || !dnsSubdomain.test(prefix))) return false;
  return name.length <= 63 && namePart.test(name);
}

function validValue(value: string): boolean {
  return value === "" || (value.length <= 63 && namePart.test(value));
}

/** Builds a requirement, enforcing what labels.NewRequirement enforces. */
function requirement(key: string, operator: Operator, values: string[]): Requirement {
  if (!validKey(key)) throw new SyntaxError(`label selector: invalid key "${key}"`);
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) throw new SyntaxError(`label selector: "${key}" ${operator} needs at least one value`);
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) throw new SyntaxError(`label selector: "${key}" ${operator} takes no values`);
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1 || !/^-?\d+$/.test(values[0] ?? "")) {
        throw new SyntaxError(`label selector: "${key}" ${operator} needs one integer value`);
      }
      return { key, operator, values };
  }
  const invalid = values.find((v) => !validValue(v));
  if (invalid !== undefined) throw new SyntaxError(`label selector: invalid value "${invalid}" for "${key}"`);
  return { key, operator, values };
}

type SymbolText = "=" | "==" | "!=" | "!" | "(" | ")" | "," | ">" | "<";
type Token = { kind: "word"; text: string } | { kind: "symbol"; text: SymbolText };

/** Recursive-descent parser over the grammar of labels.Parse. */
class SelectorParser {
  private readonly tokens: Token[];
  private position = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.tokens.length === 0) return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const next = this.take();
      if (!next) return requirements;
      if (next.text !== ",") this.fail(`expected "," but found "${next.text}"`);
    }
  }

  private requirement(): Requirement {
    if (this.peek()?.text === "!") {
      this.take();
      return requirement(this.word("a key after \"!\""), "DoesNotExist", []);
    }
    const key = this.word("a key");
    const op = this.peek();
    if (!op || op.text === ",") return requirement(key, "Exists", []);
    this.take();
    switch (op.text) {
      case "=":
      case "==":
        return requirement(key, "In", [this.optionalWord()]);
      case "!=":
        return requirement(key, "NotIn", [this.optionalWord()]);
      case ">":
        return requirement(key, "Gt", [this.word("a number")]);
      case "<":
        return requirement(key, "Lt", [this.word("a number")]);
      case "in":
        return requirement(key, "In", this.valueSet());
      case "notin":
        return requirement(key, "NotIn", this.valueSet());
      default:
        return this.fail(`unexpected "${op.text}" after "${key}"`);
    }
  }

  private valueSet(): string[] {
    if (this.take()?.text !== "(") this.fail('expected "("');
    const values: string[] = [];
    for (;;) {
      values.push(this.optionalWord());
      const next = this.take();
      if (next?.text === ")") return values;
      if (next?.text !== ",") this.fail('expected "," or ")" in value set');
    }
  }

  /** A value that may be empty: `a=` selects labels whose value is "". */
  private optionalWord(): string {
    const next = this.peek();
    if (next?.kind !== "word") return "";
    this.take();
    return next.text;
  }

  private word(what: string): string {
    const next = this.take();
    if (next?.kind !== "word") return this.fail(`expected ${what}`);
    return next.text;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private take(): Token | undefined {
    return this.tokens[this.position++];
  }

  private fail(message: string): never {
    throw new SyntaxError(`label selector "${this.text}": ${message}`);
  }
}

const symbols = new Set<string>(["==", "!=", "=", "!", "(", ")", ",", ">", "<"]);

/** Splits into symbols and words; every non-space character belongs to one of them, so this cannot fail. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(==|!=|[=!(),<>]|[^\s=!(),<>]+)/y;
  for (let match = pattern.exec(text); match?.[1] !== undefined; match = pattern.exec(text)) {
    const piece = match[1];
    tokens.push(symbols.has(piece) ? { kind: "symbol", text: piece as SymbolText } : { kind: "word", text: piece });
  }
  return tokens;
}
