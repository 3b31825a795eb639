// The altcha widget's stylesheet, imported `with { type: "file" }`: the import yields a path (see src/http/docs-page.ts).
declare module "*/altcha/dist/external/altcha.css" {
  const path: string;
  export default path;
}
