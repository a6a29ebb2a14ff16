import { expect } from "chai";
import { noRecords, type RecordCounts } from "../../../daemon/signals/registry.js";
import { trimSteps } from "../../../daemon/store/trim-steps.js";

function deleted(spans: number): RecordCounts {
  return { ...noRecords(), spans };
}

describe("a retention trim's steps", () => {
  it("settles the writer first, runs by age, again by age when the writer had points to write, then by size", () => {
    const calls: string[] = [];
    const steps = trimSteps({
      settleWriter: () => {
        calls.push("writer");
        return true;
      },
      byAge: () => {
        calls.push("age");
        return deleted(1);
      },
      bySize: () => {
        calls.push("size");
        return deleted(2);
      },
      onWriterError: () => expect.fail("no error"),
      onPassError: () => expect.fail("no error"),
    });
    expect(steps.map((step) => step().spans)).to.deep.equal([0, 1, 1, 2]);
    expect(calls).to.deep.equal(["writer", "age", "writer", "age", "size"]);
  });

  it("goes on with the passes when the writer cannot write (a full disk: they free the space)", () => {
    const calls: string[] = [];
    const errors: unknown[] = [];
    const steps = trimSteps({
      settleWriter: () => {
        throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      },
      byAge: () => {
        calls.push("age");
        return deleted(4000);
      },
      bySize: () => {
        calls.push("size");
        return deleted(0);
      },
      onWriterError: (error) => errors.push(error),
      onPassError: () => expect.fail("no error"),
    });
    expect(steps.map((step) => step().spans)).to.deep.equal([0, 4000, 0, 0]);
    expect(calls).to.deep.equal(["age", "size"]);
    expect(errors).to.have.length(2);
  });

  it("runs by size when by age fails, and reports each failing pass once", () => {
    const calls: string[] = [];
    const errors: string[] = [];
    const steps = trimSteps({
      settleWriter: () => true,
      byAge: () => {
        calls.push("age");
        throw new RangeError("The bound string, buffer, or bigint is too big");
      },
      bySize: () => {
        calls.push("size");
        return deleted(3);
      },
      onWriterError: () => expect.fail("no error"),
      onPassError: (error) => errors.push((error as Error).message),
    });
    expect(steps.map((step) => step().spans)).to.deep.equal([0, 0, 0, 3]);
    expect(calls).to.deep.equal(["age", "age", "size"]);
    expect(errors).to.deep.equal(["The bound string, buffer, or bigint is too big"]);
  });
});
