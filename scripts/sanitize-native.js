#!/usr/bin/env node
// Builds the native OTLP/JSON trace decoder with AddressSanitizer and UBSan and runs it over
// seeded fuzz payloads (test/helpers/fuzz-payloads.ts) and byte-mutated benchmark requests.
// Exits non-zero on any finding. Needs `npm run build` first (it reads the compiled helpers).
//
// Usage: node scripts/sanitize-native.js [cases]   (OBS_FUZZ_SEED picks the seed; default 1)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const cases = Number(process.argv[2] ?? 60000);
const seed = Number(process.env.OBS_FUZZ_SEED ?? 1);
const { fuzzPayloads, seededRandom } = await import(join(root, "dist/test/helpers/fuzz-payloads.js"));
const { makeWorkload } = await import(join(root, "dist/bench/span-workload.js"));

const parts = [];
const add = (body) => parts.push(Buffer.from(String(body.length).padStart(10, "0")), body);
for (const payload of fuzzPayloads(seed, cases)) if (payload.format === "json") add(payload.body);
const random = seededRandom(seed + 1);
const requests = makeWorkload(2, seed, 1_700_000_000_000_000_000n).json;
for (let i = 0; i < 3000; i++) {
  const body = Buffer.from(requests[i % requests.length]);
  for (let k = 0; k < 1 + Math.floor(random() * 4); k++)
    body[Math.floor(random() * body.length)] = Math.floor(random() * 256);
  add(body.subarray(0, 1 + Math.floor(random() * body.length)));
}
for (const body of requests) add(body);

const work = mkdtempSync(join(tmpdir(), "obs-sanitize-"));
try {
  const corpus = join(work, "corpus");
  writeFileSync(corpus, Buffer.concat(parts));
  const simdjson = dirname(createRequire(import.meta.url).resolve("@nozbe/simdjson/src/simdjson.h"));
  const binary = join(work, "sanitize");
  console.log(`building with -fsanitize=address,undefined (about a minute)...`);
  execFileSync(
    "g++",
    [
      "-O1",
      "-g",
      "-std=gnu++20",
      "-fsanitize=address,undefined",
      "-fno-sanitize-recover=undefined",
      "-fno-omit-frame-pointer",
      "-w",
      `-I${simdjson}`,
      "-o",
      binary,
      join(root, "native/otlp-json/sanitize/sanitize-main.cc"),
      join(root, "native/otlp-json/decode-traces.cc"),
      join(simdjson, "simdjson.cpp"),
    ],
    { stdio: "inherit" },
  );
  console.log(`seed ${seed}: ${parts.length / 2} bodies`);
  execFileSync(binary, [corpus], { stdio: "inherit", env: { ...process.env, ASAN_OPTIONS: "detect_leaks=1" } });
  console.log("no sanitizer findings");
} finally {
  rmSync(work, { recursive: true, force: true });
}
