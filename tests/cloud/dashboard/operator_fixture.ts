// Operators for the dashboard tests, created as the command line does.
import { newOperator } from "../../../cloud/operators/operators.ts";
import type { CloudRepositories } from "../../../cloud/open_cloud_storage.ts";
import type { OperatorRecord } from "../../../cloud/operators/mod.ts";
import { TEST_PASSWORD_COST } from "../../fixtures/test_cloud.ts";

export const OPERATOR_PASSWORD = "correct horse battery staple";

export async function createOperator(
  storage: CloudRepositories,
  email: string,
  role: "admin" | "viewer" = "admin",
): Promise<OperatorRecord> {
  const operator = await newOperator(email, role, OPERATOR_PASSWORD, Date.now(), TEST_PASSWORD_COST);
  if (!await storage.operators.createOperator(operator)) throw new Error(`${email} exists`);
  return operator;
}
