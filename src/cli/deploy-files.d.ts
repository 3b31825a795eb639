// deploy/'s unit and settings, imported `with { type: "text" }`: the import yields the file's text (see src/cli/service.ts).
declare module "*/deploy/formsvc.service" {
  const text: string;
  export default text;
}

declare module "*/deploy/formsvc.env.example" {
  const text: string;
  export default text;
}
