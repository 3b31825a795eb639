import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { S3Settings } from "../../src/lib/object-store";

export interface S3Server {
  /** `http://127.0.0.1:PORT` */
  endpoint: string;
  bucket: string;
  /** The `FORMSVC_S3_*` settings that reach it, as the config names them. */
  settings: S3Settings;
  /** The same as environment variables, for a server or CLI started as a process. */
  env: Record<string, string>;
  /** Where it keeps the objects on disk, to check what is really stored. */
  directory: string;
  stop(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on loopback, keeping its objects in a temp folder, with one bucket. */
export async function startS3(bucket = "formsvc-test"): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), "formsvc-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = {
    s3Endpoint: endpoint,
    s3Region: "us-east-1",
    s3AccessKeyId: "S3RVER",
    s3SecretAccessKey: "S3RVER",
    s3PathStyle: true,
  };
  return {
    endpoint,
    bucket,
    settings,
    env: {
      FORMSVC_S3_ENDPOINT: endpoint,
      FORMSVC_S3_REGION: "us-east-1",
      FORMSVC_S3_ACCESS_KEY_ID: "S3RVER",
      FORMSVC_S3_SECRET_ACCESS_KEY: "S3RVER",
      FORMSVC_S3_PATH_STYLE: "true",
    },
    directory,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
