// Installs pinned npm packages into a throw-away folder and returns a `require` that loads them, so
// the tokenizer tools never touch the repository's files or a global node_modules.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/// Runs `body(require)` with `packages` (e.g. ["gpt-3-encoder@1.1.4"]) installed in a temporary
/// folder that is removed afterwards, whatever `body` does.
export async function withNpmPackages(packages, body) {
  const dir = mkdtempSync(join(tmpdir(), "attnviz-npm-"));
  try {
    execFileSync(
      "npm",
      ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
        "--loglevel=error", ...packages],
      { stdio: ["ignore", "ignore", "inherit"] });
    return await body(createRequire(join(dir, "node_modules", "index.js")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
