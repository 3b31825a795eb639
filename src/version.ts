import pkg from "../package.json" with { type: "json" };

declare const FORMSVC_BUILD_VERSION: string | undefined;

/** The version: injected by build.ts into the binary, else package.json's (running from a checkout). */
export const VERSION: string = typeof FORMSVC_BUILD_VERSION === "string" ? FORMSVC_BUILD_VERSION : pkg.version;
