// Swagger UI's browser files, imported `with { type: "file" }`: the import yields a path (see src/http/docs-page.ts).
declare module "swagger-ui-dist/*" {
  const path: string;
  export default path;
}
