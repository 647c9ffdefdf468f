import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./global-setup.js"],
    // One server for every file: run the files one after another, so that
    // restoring the baseline in one never pulls tables from under another.
    fileParallelism: false,
  },
});
