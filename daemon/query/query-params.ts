/** The query-string parsers moved to shared/query-params.ts, beside the route table. */
export * from "../../shared/query-params.js";
