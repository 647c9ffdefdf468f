// Vitest global set-up: one in-memory extenddb for the whole run, with the
// admin API and the manual clock. The endpoint reaches the tests through
// process.env (Vitest runs them in worker processes that inherit it).
// Needs the extenddb binary on PATH, or named by EXTENDDB_BIN.
// See docs/testing-with-extenddb.md.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

let server;

export async function setup() {
  server = spawn(process.env.EXTENDDB_BIN ?? "extenddb",
    ["serve", "--in-memory", "--listen", "127.0.0.1:0", "--admin-api", "--clock", "manual"],
    { stdio: ["ignore", "ignore", "pipe"] });
  const endpoint = await new Promise((resolve, reject) => {
    server.once("exit", (code) => reject(new Error(`extenddb exited with ${code}`)));
    const lines = createInterface({ input: server.stderr });
    lines.on("line", (line) => {
      const m = line.match(/endpoint=(http:\/\/\S+)/); // the start-up log line
      if (m) resolve(m[1]);
    });
  });
  process.env.EXTENDDB_ENDPOINT = endpoint;
  await admin("POST", "snapshots", { Name: "baseline" });
}

export async function teardown() {
  server?.kill("SIGTERM");
}

// admin calls the admin API; unsigned requests are accepted in local mode.
export async function admin(method, path, body) {
  const res = await fetch(`${process.env.EXTENDDB_ENDPOINT}/admin/v1/${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = await res.json();
  if (!res.ok) throw new Error(`${out.__type}: ${out.message}`);
  return out;
}
