// geoip-country's data files, imported `with { type: "file" }`: the import yields a path (see src/lib/geo.ts).
declare module "geoip-country/data/*.dat" {
  const path: string;
  export default path;
}
