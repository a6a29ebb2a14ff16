import { expect } from "chai";
import { BodyBudget } from "../../../daemon/ingest/body-budget.js";

/** Which of `admissions` have resolved, after pending callbacks have run. */
async function admittedOf(admissions: Promise<void>[]): Promise<boolean[]> {
  const done = admissions.map(() => false);
  admissions.forEach((admission, i) => void admission.then(() => (done[i] = true)));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("body budget", () => {
  it("admits requests at once while they fit, and the next one when enough is released", async () => {
    const budget = new BodyBudget(100);
    const admissions = [budget.admit(40), budget.admit(60), budget.admit(30)];
    expect(await admittedOf(admissions)).to.deep.equal([true, true, false]);
    expect(budget.admittedBytes).to.equal(100);
    expect(budget.waitingCount).to.equal(1);

    budget.release(40);
    expect(await admittedOf(admissions)).to.deep.equal([true, true, true]);
    expect(budget.admittedBytes).to.equal(90);
    expect(budget.waitingCount).to.equal(0);
  });

  it("admits in arrival order: a small request does not pass a large one that waits", async () => {
    const budget = new BodyBudget(100);
    const first = budget.admit(80);
    const large = budget.admit(50);
    const small = budget.admit(10);
    expect(await admittedOf([first, large, small])).to.deep.equal([true, false, false]);

    budget.release(80);
    expect(await admittedOf([large, small])).to.deep.equal([true, true]);
    expect(budget.admittedBytes).to.equal(60);
  });

  it("admits a request larger than the whole budget once nothing else is inside", async () => {
    const budget = new BodyBudget(100);
    const small = budget.admit(10);
    const huge = budget.admit(500);
    expect(await admittedOf([small, huge])).to.deep.equal([true, false]);

    budget.release(10);
    expect(await admittedOf([huge])).to.deep.equal([true]);
    expect(budget.admittedBytes).to.equal(500);
    const next = budget.admit(1);
    expect(await admittedOf([next])).to.deep.equal([false]);
    budget.release(500);
    expect(await admittedOf([next])).to.deep.equal([true]);
  });

  it("lets waiting requests in once an admitted one shrinks from its estimate to its measured cost", async () => {
    const budget = new BodyBudget(100);
    const estimated = budget.admit(90);
    const next = budget.admit(50);
    expect(await admittedOf([estimated, next])).to.deep.equal([true, false]);

    budget.resize(90, 30);
    expect(await admittedOf([next])).to.deep.equal([true]);
    expect(budget.admittedBytes).to.equal(80);
    budget.release(30);
    budget.release(50);
    expect(budget.admittedBytes).to.equal(0);
  });
});
