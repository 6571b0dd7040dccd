// Writes the API reference of the package entries ("kube-loom" and "kube-loom/testing") as
// Markdown, from the sources' doc comments, with TypeDoc. Exits 1 when a symbol the reference
// shows has no doc comment, or refers to a type the reference cannot show.
//   node tools/api-docs/generate.ts [--out DIR]      (npm run docs:api; DIR defaults to docs/api)
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Application, type TypeDocOptions, TSConfigReader } from "typedoc";
import { pruneUnusedUnexportedTypes, UNEXPORTED_NAMESPACE } from "./unexported-types.ts";

const repoRoot = resolve(import.meta.dirname, "../..");

/** Options of typedoc-plugin-markdown and typedoc-plugin-missing-exports, which TypeDoc's own type does not know. */
interface PluginOptions {
  internalModule: string;
  placeInternalsInOwningModule: boolean;
  entryFileName: string;
  useCodeBlocks: boolean;
  hidePageHeader: boolean;
}

function options(out: string): Partial<TypeDocOptions> & PluginOptions {
  return {
    name: "kube-loom",
    entryPoints: ["mod.ts", "pkg/testing/mod.ts"],
    tsconfig: "tsconfig.build.json",
    plugin: ["typedoc-plugin-markdown", "typedoc-plugin-missing-exports"],
    out,
    readme: "none",
    // Source links would carry line numbers: every edit above a declaration would stale the reference.
    disableSources: true,
    excludeExternals: true,
    excludePrivate: true,
    excludeProtected: true,
    excludeInternal: true,
    internalModule: UNEXPORTED_NAMESPACE,
    placeInternalsInOwningModule: false,
    validation: { notDocumented: true, notExported: true, invalidLink: true, rewrittenLink: true, unusedMergeModuleWith: true },
    requiredToBeDocumented: ["Enum", "EnumMember", "Variable", "Function", "Class", "Constructor", "Interface", "Property", "Method", "Accessor", "TypeAlias", "Namespace"],
    entryFileName: "README.md",
    useCodeBlocks: true,
    hidePageHeader: true,
  };
}

const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: "string", default: "docs/api" } } });
process.chdir(repoRoot);
const app = await Application.bootstrapWithPlugins(options(resolve(values.out)), [new TSConfigReader()]);
pruneUnusedUnexportedTypes(app);
const project = await app.convert();
if (!project) {
  console.error("typedoc could not convert mod.ts and pkg/testing/mod.ts; its messages are above");
  process.exit(1);
}
app.validate(project);
await app.generateOutputs(project);
if (app.logger.hasErrors() || app.logger.hasWarnings()) {
  console.error(`${values.out}: written, but the warnings above must be fixed (every symbol in the reference needs a doc comment)`);
  process.exit(1);
}
