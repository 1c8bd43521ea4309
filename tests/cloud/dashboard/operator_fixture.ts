// Operators for the dashboard tests, created as the command line does.
import { newOperator } from "../../../cloud/operators/operators.ts";
import type { CloudRepositories, OperatorRecord } from "../../../cloud/database/cloud_storage.ts";

export const OPERATOR_PASSWORD = "correct horse battery staple";

export async function createOperator(
  storage: CloudRepositories,
  email: string,
  role: "admin" | "viewer" = "admin",
): Promise<OperatorRecord> {
  const operator = await newOperator(email, role, OPERATOR_PASSWORD);
  if (!await storage.operators.createOperator(operator)) throw new Error(`${email} exists`);
  return operator;
}
