// Swagger UI's browser files, imported `with { type: "file" }`: the import yields a path (see src/http/docs-page.ts).
declare module "swagger-ui-dist/*" {
  const path: string;
  export default path;
}

// The altcha widget's browser build, imported the same way (see src/modules/spam/widget.ts).
declare module "*/altcha/dist/main/altcha.umd.min.cjs" {
  const path: string;
  export default path;
}

// Its language packs (the widget's words), the same way.
declare module "*.umd.cjs" {
  const path: string;
  export default path;
}
