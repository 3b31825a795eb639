import { Cron } from "croner";
import ipaddr from "ipaddr.js";
import { isIP } from "node:net";
import { CLIENT_IP_HEADERS } from "./lib/client-ip";
import { ROLES } from "./lib/rights";

/** Every setting formsvc reads: its environment variable, default, parser, and whether it is a secret. */
const settings = {
  db: {
    env: "FORMSVC_DB",
    default: "./data/formsvc.db",
    parse: database,
    secret: "password",
    doc: "the database: a SQLite file (folders are created), or a PostgreSQL URL (postgres://user:pass@host:5432/formsvc) for several instances on one database",
  },
  host: { env: "FORMSVC_HOST", default: "127.0.0.1", parse: host, doc: "address `serve` listens on" },
  port: {
    env: "FORMSVC_PORT",
    default: "3000",
    parse: int(0, 65535),
    doc: "port `serve` listens on (0 picks a free one)",
  },
  rateLimit: {
    env: "FORMSVC_RATE_LIMIT",
    default: "120",
    parse: int(1, 1_000_000_000),
    doc: "requests per window, per secret API key (per client address without a valid key)",
  },
  publicRateLimit: {
    env: "FORMSVC_PUBLIC_RATE_LIMIT",
    default: "10",
    parse: int(1, 1_000_000_000),
    doc: "requests per window for a publishable key, per visitor address (so one visitor cannot use up a site's quota)",
  },
  rateWindow: {
    env: "FORMSVC_RATE_WINDOW",
    default: "60",
    parse: int(1, 86_400),
    doc: "seconds over which the rate limit refills",
  },
  maxBodyBytes: {
    env: "FORMSVC_MAX_BODY_BYTES",
    default: "102400",
    parse: int(1024, 50 * 1024 * 1024),
    doc: "largest accepted request body; larger is 413",
  },
  trustedProxies: {
    env: "FORMSVC_TRUSTED_PROXIES",
    default: "",
    parse: proxyRanges,
    doc: "addresses and CIDR ranges of your reverse proxies, comma-separated (10.0.0.5,2001:db8::/32): only a request whose socket peer is one of them has its forwarding headers read; the client is the rightmost X-Forwarded-For address that is not one of them",
  },
  trustProxy: {
    env: "FORMSVC_TRUST_PROXY",
    default: "false",
    parse: bool,
    doc: "trust loopback and the private ranges (127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7) as proxies, beside FORMSVC_TRUSTED_PROXIES",
  },
  clientIpHeader: {
    env: "FORMSVC_CLIENT_IP_HEADER",
    default: "X-Forwarded-For",
    parse: oneOf(CLIENT_IP_HEADERS, true),
    doc: "where a trusted proxy names the client: X-Forwarded-For, or CF-Connecting-IP behind Cloudflare (then CF-IPCountry gives the country)",
  },
  smtpUrl: {
    env: "FORMSVC_SMTP_URL",
    default: "",
    parse: optionalUrl(["smtp:", "smtps:"]),
    secret: true,
    doc: "SMTP server for owner notifications, e.g. smtp://user:pass@host:587",
  },
  mailFrom: {
    env: "FORMSVC_MAIL_FROM",
    default: "formsvc <formsvc@localhost>",
    parse: text,
    doc: "sender of notification emails",
  },
  mailRetryBaseSeconds: {
    env: "FORMSVC_MAIL_RETRY_BASE_SECONDS",
    default: "30",
    parse: num(0.01, 30),
    doc: "first retry delay of a failed email; doubles each attempt",
  },
  mailRetryHours: {
    env: "FORMSVC_MAIL_RETRY_HOURS",
    default: "24",
    parse: num(0.0001, 720),
    doc: "how long a failing email is retried before it is marked failed",
  },
  publicUrl: {
    env: "FORMSVC_PUBLIC_URL",
    default: "",
    parse: publicUrl,
    doc: "the address people reach this server at (https://forms.example.com): the links of waitlist confirmation emails start with it (they wait while it is unset); its origin is the one session requests must come from, and an https URL makes the session cookie Secure",
  },
  webhookAllowPrivate: {
    env: "FORMSVC_WEBHOOK_ALLOW_PRIVATE",
    default: "false",
    parse: bool,
    doc: "let webhooks reach loopback, private, link-local and other internal addresses (only for receivers on your own network)",
  },
  webhookRetryScale: {
    env: "FORMSVC_WEBHOOK_RETRY_SCALE",
    default: "1",
    parse: num(0, 1000),
    doc: "multiplies the webhook retry delays (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h)",
  },
  metricsToken: {
    env: "FORMSVC_METRICS_TOKEN",
    default: "",
    parse: text,
    secret: true,
    doc: "when set, GET /metrics needs Authorization: Bearer <token>",
  },
  powMaxCounter: {
    env: "FORMSVC_POW_MAX_COUNTER",
    default: "500",
    parse: int(1, 100_000),
    doc: "proof-of-work difficulty: the most key derivations (PBKDF2-SHA-256, 1,000 iterations each) a solver may need; a phone solves the default in about 0.2 s on average",
  },
  turnstileSecret: {
    env: "FORMSVC_TURNSTILE_SECRET",
    default: "",
    parse: text,
    secret: true,
    doc: "Cloudflare Turnstile secret key, needed by forms whose challenge is turnstile",
  },
  turnstileVerifyUrl: {
    env: "FORMSVC_TURNSTILE_VERIFY_URL",
    default: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
    parse: url(["https:", "http:"]),
    doc: "where Turnstile tokens are verified (siteverify)",
  },
  hcaptchaSecret: {
    env: "FORMSVC_HCAPTCHA_SECRET",
    default: "",
    parse: text,
    secret: true,
    doc: "hCaptcha secret key, needed by forms whose challenge is hcaptcha",
  },
  hcaptchaVerifyUrl: {
    env: "FORMSVC_HCAPTCHA_VERIFY_URL",
    default: "https://api.hcaptcha.com/siteverify",
    parse: url(["https:", "http:"]),
    doc: "where hCaptcha tokens are verified (siteverify)",
  },
  s3Endpoint: {
    env: "FORMSVC_S3_ENDPOINT",
    default: "",
    parse: s3Endpoint,
    doc: "S3-compatible storage for `s3://` locations (uploads, backups): its endpoint, e.g. https://s3.eu-central-1.amazonaws.com, https://ACCOUNT.r2.cloudflarestorage.com, http://minio:9000; empty = AWS for the region",
  },
  s3Region: {
    env: "FORMSVC_S3_REGION",
    default: "us-east-1",
    parse: text,
    doc: "S3 region (R2: auto)",
  },
  s3AccessKeyId: {
    env: "FORMSVC_S3_ACCESS_KEY_ID",
    default: "",
    parse: text,
    secret: true,
    doc: "S3 access key id (empty: AWS_ACCESS_KEY_ID / S3_ACCESS_KEY_ID from the environment)",
  },
  s3SecretAccessKey: {
    env: "FORMSVC_S3_SECRET_ACCESS_KEY",
    default: "",
    parse: text,
    secret: true,
    doc: "S3 secret access key (empty: AWS_SECRET_ACCESS_KEY / S3_SECRET_ACCESS_KEY from the environment)",
  },
  s3PathStyle: {
    env: "FORMSVC_S3_PATH_STYLE",
    default: "true",
    parse: bool,
    doc: "address objects as ENDPOINT/BUCKET/KEY (MinIO, Garage, most self-hosted stores); false: BUCKET.ENDPOINT/KEY",
  },
  backupSchedule: {
    env: "FORMSVC_BACKUP_SCHEDULE",
    default: "",
    parse: cron,
    doc: "when `serve` makes a backup, as cron in UTC (0 0 3 * * * is 03:00 every day; a seconds field is allowed); empty = no scheduled backups",
  },
  backupTo: {
    env: "FORMSVC_BACKUP_TO",
    default: "",
    parse: text,
    doc: "where backups go: a folder, or s3://BUCKET/PREFIX on the FORMSVC_S3_* storage; empty = backups/ beside the database",
  },
  backupKeep: {
    env: "FORMSVC_BACKUP_KEEP",
    default: "7",
    parse: int(1, 10_000),
    doc: "how many backups are kept; after each backup the oldest beyond this are deleted",
  },
  files: {
    env: "FORMSVC_FILES",
    default: "",
    parse: filesLocation,
    doc: "where uploaded files are kept: a folder, or s3://BUCKET/PREFIX (FORMSVC_S3_*); empty = files/ beside the SQLite database (on PostgreSQL ./data/files, which is per machine: instances sharing a database must share the store, so use s3:// there)",
  },
  maxUploadBytes: {
    env: "FORMSVC_MAX_UPLOAD_BYTES",
    default: "104857600",
    parse: int(1024, 2_147_483_647),
    doc: "largest multipart request with files (all its files and fields); larger is 413. Each form's files setting limits its own uploads below this",
  },
  minBodyRate: {
    env: "FORMSVC_MIN_BODY_RATE",
    default: "1024",
    parse: int(1, 1_073_741_824),
    doc: "bytes a second a request body must keep coming at, over any 30 s; slower is ended with 408 BODY_TOO_SLOW (a body at this rate or faster is read however long it takes)",
  },
  maxUploadsPerClient: {
    env: "FORMSVC_MAX_UPLOADS_PER_CLIENT",
    default: "4",
    parse: int(1, 10_000),
    doc: "multipart bodies one client address (IPv6 by /64) may have being read at once; more is 429",
  },
  clamd: {
    env: "FORMSVC_CLAMD",
    default: "",
    parse: clamdAddress,
    doc: "scan every uploaded file with ClamAV before answering: tcp://HOST:PORT or a unix socket path of clamd; a hit is 400 FILE_INFECTED, clamd silent for 10 s is 503; empty = no scan",
  },
  recaptchaSecret: {
    env: "FORMSVC_RECAPTCHA_SECRET",
    default: "",
    parse: text,
    secret: true,
    doc: "Google reCAPTCHA secret key (v2 or v3), needed by forms whose challenge is recaptcha",
  },
  recaptchaVerifyUrl: {
    env: "FORMSVC_RECAPTCHA_VERIFY_URL",
    default: "https://www.google.com/recaptcha/api/siteverify",
    parse: url(["https:", "http:"]),
    doc: "where reCAPTCHA tokens are verified (siteverify)",
  },
  sessionIdleDays: {
    env: "FORMSVC_SESSION_IDLE_DAYS",
    default: "7",
    parse: num(0.001, 365),
    doc: "a login session ends after this many days without a request",
  },
  sessionMaxDays: {
    env: "FORMSVC_SESSION_MAX_DAYS",
    default: "30",
    parse: num(0.001, 365),
    doc: "a login session ends this many days after the login, however active",
  },
  secretKey: {
    env: "FORMSVC_SECRET_KEY",
    default: "",
    parse: secretKey,
    secret: true,
    doc: "the key (base64 of 32 bytes: openssl rand -base64 32) that TOTP secrets are encrypted under; empty = the file formsvc.key beside the SQLite database (on PostgreSQL ./data/formsvc.key), made on first use. Back it up apart from the database: without it, second factors must be reset",
  },
  require2fa: {
    env: "FORMSVC_REQUIRE_2FA",
    default: "false",
    parse: bool,
    doc: "every person must enrol a second factor (TOTP or a passkey): a session that proved none reaches only enrolment, auth/me and logout (403 SECOND_FACTOR_ENROLMENT_REQUIRED elsewhere)",
  },
  oidcIssuer: {
    env: "FORMSVC_OIDC_ISSUER",
    default: "",
    parse: oidcIssuer,
    doc: "OpenID Connect sign-in: the provider's issuer URL (its /.well-known/openid-configuration is read); needs FORMSVC_OIDC_CLIENT_ID and FORMSVC_OIDC_CLIENT_SECRET, and the provider must allow the redirect URI FORMSVC_PUBLIC_URL/api/v1/auth/oidc/callback",
  },
  oidcClientId: {
    env: "FORMSVC_OIDC_CLIENT_ID",
    default: "",
    parse: text,
    doc: "OpenID Connect sign-in: the client id",
  },
  oidcClientSecret: {
    env: "FORMSVC_OIDC_CLIENT_SECRET",
    default: "",
    parse: text,
    secret: true,
    doc: "OpenID Connect sign-in: the client secret",
  },
  oidcName: {
    env: "FORMSVC_OIDC_NAME",
    default: "",
    parse: text,
    doc: "what the login page's \"Sign in with …\" button names (default: the issuer's host name)",
  },
  oidcAllowedDomains: {
    env: "FORMSVC_OIDC_ALLOWED_DOMAINS",
    default: "",
    parse: domains,
    doc: "comma-separated email domains (example.com) whose people may sign in with OpenID Connect; empty: any verified email",
  },
  oidcTeam: {
    env: "FORMSVC_OIDC_TEAM",
    default: "",
    parse: text,
    doc: "a team id: a person new to formsvc who signs in with OpenID Connect joins it, with FORMSVC_OIDC_ROLE",
  },
  oidcRole: {
    env: "FORMSVC_OIDC_ROLE",
    default: "viewer",
    parse: oneOf(ROLES),
    doc: "the role FORMSVC_OIDC_TEAM gives a person new to formsvc",
  },
  mcpMaxResults: {
    env: "FORMSVC_MCP_MAX_RESULTS",
    default: "50",
    parse: int(1, 100),
    doc: "items one answer of the MCP endpoint (/mcp) holds at most, with a cursor to go on (each answer is also at most 100 KB of text)",
  },
  logLevel: {
    env: "FORMSVC_LOG_LEVEL",
    default: "info",
    parse: oneOf(["debug", "info", "warn", "error", "silent"] as const),
    doc: "lowest level written to stdout",
  },
} satisfies Record<string, Setting<unknown>>;

interface Setting<T> {
  env: string;
  default: string;
  parse: (raw: string) => T;
  /** Never shown as it is: `true` hides the whole value, `"password"` only the password of a URL. */
  secret?: boolean | "password";
  doc: string;
}

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]["parse"]> };
export type ConfigOverrides = Partial<Record<keyof Config, string | number | boolean | undefined>>;

/** All problems found while reading the configuration, reported together. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Defaults < FORMSVC_* environment < flags; validates everything and throws once with every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env, flags: ConfigOverrides = {}): Config {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings) as [keyof Config, Setting<unknown>][]) {
    const flag = flags[key];
    const [raw, source] =
      flag !== undefined
        ? [String(flag), `--${kebab(key)}`]
        : env[s.env] !== undefined
          ? [env[s.env]!, s.env]
          : [s.default, "default"];
    try {
      out[key] = s.parse(raw);
    } catch (e) {
      problems.push(`${source}: ${(e as Error).message}`);
    }
  }
  if (
    out.clientIpHeader === "CF-Connecting-IP" &&
    out.trustedProxies !== undefined &&
    (out.trustedProxies as string[]).length === 0 &&
    out.trustProxy === false
  ) {
    problems.push(
      "FORMSVC_CLIENT_IP_HEADER: CF-Connecting-IP is read only from a trusted proxy; list Cloudflare's ranges (or your tunnel's address) in FORMSVC_TRUSTED_PROXIES",
    );
  }
  const oidc = [out.oidcIssuer, out.oidcClientId, out.oidcClientSecret];
  if (oidc.some(Boolean) && !oidc.every(Boolean))
    problems.push(
      "FORMSVC_OIDC_ISSUER, FORMSVC_OIDC_CLIENT_ID and FORMSVC_OIDC_CLIENT_SECRET turn on OpenID Connect sign-in together: set all three, or none",
    );
  if (problems.length) throw new ConfigError(problems);
  return out as Config;
}

/** The effective settings, secrets redacted, for `formsvc config`. */
export function describeConfig(config: Config): { key: string; env: string; value: unknown; doc: string }[] {
  return (Object.entries(settings) as [keyof Config, Setting<unknown>][]).map(([key, s]) => ({
    key,
    env: s.env,
    value: s.secret === "password" ? redactPassword(config[key]) : s.secret ? redact(config[key]) : config[key],
    doc: s.doc,
  }));
}

/** Every setting with its default, for documentation. */
export const settingDocs = Object.entries(settings).map(([key, s]) => ({
  key,
  env: s.env,
  default: s.default,
  doc: s.doc,
}));

/** A URL with its password hidden; anything else (a file path, even `C://data/x.db`) as it is. */
export function redactPassword(value: unknown): unknown {
  // Only a URL with user information can hold a password.
  if (typeof value !== "string" || !/^[a-z][a-z0-9+.-]+:\/\/[^/]*@/i.test(value) || !URL.canParse(value)) return value;
  const u = new URL(value);
  if (u.password) u.password = "***";
  return u.toString();
}

function redact(value: unknown): unknown {
  if (value === "" || value === null) return value;
  if (value instanceof URL) {
    const u = new URL(value);
    // Some providers take the API key as the user name alone, or in the query.
    if (u.password) u.password = "***";
    else if (u.username) u.username = "***";
    for (const name of new Set(u.searchParams.keys())) u.searchParams.set(name, "***");
    return u.toString();
  }
  return "***";
}

function kebab(key: string) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function secretKey(raw: string): string {
  const value = raw.trim();
  if (value && Buffer.from(value, "base64").length !== 32)
    throw new Error("not base64 of 32 bytes (openssl rand -base64 32)");
  return value;
}

function text(raw: string): string {
  return raw.trim();
}

/** Whether a database setting names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (db: string) => /^postgres(ql)?:\/\//i.test(db);

/**
 * A SQLite file path, or a PostgreSQL URL. Any other URL would otherwise be taken as a path and
 * become folders named after it, password included; it is refused, naming only its scheme. Two
 * letters at least, so a Windows drive (`C://data`) is still a path.
 */
function database(raw: string): string {
  const value = text(raw);
  if (isPostgresUrl(value)) {
    if (!URL.canParse(value) || !new URL(value).hostname)
      throw new Error("a postgres:// URL needs a host (postgres://user:pass@host:5432/formsvc)");
    return value;
  }
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(value)?.[1];
  if (scheme)
    throw new Error(
      `a ${scheme.toLowerCase()}:// URL; a SQLite file path (e.g. ./data/formsvc.db) or a postgres:// URL`,
    );
  return value;
}

/**
 * An IP address or a host name; `999.1.1.1` is neither (the listener would fail with a puzzling
 * message). Underscores pass: container names such as `my_service` resolve in Docker's DNS.
 */
function host(raw: string): string {
  const value = raw.trim();
  const dotted = /^[\d.]+$/.test(value);
  if (
    isIP(value) ||
    (!dotted && /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/i.test(value))
  )
    return value;
  throw new Error(`"${raw}" is not an IP address or host name`);
}

function int(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`"${raw}" is not a whole number`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`${n} is outside ${min}..${max}`);
    return n;
  };
}

function num(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) throw new Error(`"${raw}" is not a number`);
    if (n < min || n > max) throw new Error(`${n} is outside ${min}..${max}`);
    return n;
  };
}

function bool(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off", ""].includes(v)) return false;
  throw new Error(`"${raw}" is not true or false`);
}

function oneOf<T extends string>(values: readonly T[], ignoreCase = false) {
  const same = (a: string, b: string) => (ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b);
  return (raw: string): T => {
    const value = values.find((v) => same(v, raw.trim()));
    if (value === undefined) throw new Error(`"${raw}" is not one of ${values.join(", ")}`);
    return value;
  };
}

/**
 * Comma-separated IP addresses and CIDR ranges, each as `address/prefix`. IPv4 only in dotted
 * decimal: "127.1" or "0x7f000001" are legal to inet_aton but surely a typing mistake here.
 */
function proxyRanges(raw: string): string[] {
  const entries = raw
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const bad: string[] = [];
  const ranges = entries.flatMap((entry) => {
    const [address = "", prefix, ...rest] = entry.split("/");
    const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
    const max = v4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (
      rest.length ||
      (!v4 && (address.includes(".") || !ipaddr.IPv6.isValid(address))) ||
      !(bits >= 0 && bits <= max)
    ) {
      bad.push(entry);
      return [];
    }
    return [`${ipaddr.parse(address).toString()}/${bits}`];
  });
  if (bad.length)
    throw new Error(
      `${bad.map((b) => `"${b}"`).join(", ")} ${bad.length > 1 ? "are not IP addresses or CIDR ranges" : "is not an IP address or CIDR range"} (e.g. 10.0.0.5, 10.0.0.0/8, 2001:db8::/32)`,
    );
  return ranges;
}

/** A croner pattern (5 or 6 fields, seconds first when 6), or empty for none; checked now, not when `serve` starts. */
function cron(raw: string): string {
  const value = raw.trim();
  if (value === "") return "";
  try {
    new Cron(value, { paused: true, utcOffset: 0 }).stop();
  } catch (e) {
    throw new Error(
      `"${value}" is not a cron schedule (${(e as Error).message}); e.g. 0 0 3 * * * for 03:00 UTC daily`,
    );
  }
  return value;
}

/** An S3 endpoint: an http(s) origin, kept without a trailing slash; empty for AWS's own. */
function s3Endpoint(raw: string): string {
  const value = optionalUrl(["http:", "https:"])(raw);
  if (!value) return "";
  if (value.username || value.password)
    throw new Error("must not carry credentials (use FORMSVC_S3_ACCESS_KEY_ID and FORMSVC_S3_SECRET_ACCESS_KEY)");
  return value.href.replace(/\/+$/, "");
}

/** An uploads location: a folder path or s3://BUCKET[/PREFIX]; empty for the default. */
function filesLocation(raw: string): string {
  const value = text(raw);
  if (/^s3:\/\//i.test(value) && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^?#]*)?$/i.test(value))
    throw new Error("an s3:// location is s3://BUCKET or s3://BUCKET/PREFIX");
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(value)?.[1];
  if (scheme && scheme.toLowerCase() !== "s3")
    throw new Error(`a ${scheme}:// URL; a folder path or s3://BUCKET/PREFIX`);
  return value;
}

/** clamd's address: tcp://HOST:PORT, or a unix socket path; empty for none. */
function clamdAddress(raw: string): string {
  const value = text(raw);
  if (value === "" || value.startsWith("/")) return value;
  const m = /^tcp:\/\/([^:/]+|\[[0-9a-f:]+\]):(\d{1,5})$/i.exec(value);
  if (!m || Number(m[2]) > 65535) throw new Error("must be tcp://HOST:PORT or an absolute unix socket path");
  return value;
}

/** An OpenID Connect issuer: https, or http on loopback only (a provider on the same machine, as in tests). */
function oidcIssuer(raw: string): string {
  const value = optionalUrl(["http:", "https:"])(raw);
  if (!value) return "";
  if (value.protocol === "http:" && !["127.0.0.1", "localhost", "[::1]"].includes(value.hostname))
    throw new Error("must be https (http only on loopback)");
  return value.href.replace(/\/+$/, "");
}

/** Comma-separated email domains, lower-cased. */
function domains(raw: string): string[] {
  const list = raw
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
  const bad = list.filter((d) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(d));
  if (bad.length) throw new Error(`${bad.map((b) => `"${b}"`).join(", ")}: not an email domain (e.g. example.com)`);
  return list;
}

/** A base URL for links people open: http(s), no query or fragment; kept without a trailing slash. */
function publicUrl(raw: string): string {
  const value = optionalUrl(["http:", "https:"])(raw);
  if (!value) return "";
  if (value.search || value.hash)
    throw new Error("must not carry a query or a fragment (e.g. https://forms.example.com)");
  if (value.username || value.password) throw new Error("must not carry a user name or password");
  return value.href.replace(/\/+$/, "");
}

function url(protocols: string[]) {
  const parse = optionalUrl(protocols);
  return (raw: string): URL => {
    const value = parse(raw);
    if (!value) throw new Error("must be set to a URL");
    return value;
  };
}

function optionalUrl(protocols: string[]) {
  return (raw: string): URL | null => {
    if (raw.trim() === "") return null;
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw new Error("is not a URL");
    }
    if (!protocols.includes(url.protocol))
      throw new Error(`must start with ${protocols.map((p) => `${p}//`).join(" or ")}`);
    return url;
  };
}
