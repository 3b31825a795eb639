// Fontsource's font files, imported `with { type: "file" }`: the import yields a path (see src/lib/pdf/fonts.ts).
declare module "@fontsource/*.woff" {
  const path: string;
  export default path;
}
