// The project's Hrana-over-HTTP test fixture in a process of its own (so its synchronous statements never stall the
// bench's clock): `node bench/cloud/hrana_process.ts PATH` prints `listening PORT`.
import process from "node:process";
import { startHranaServer } from "../../tests/fixtures/hrana_server.ts";

const server = await startHranaServer(process.argv[2]);
console.log(`listening ${new URL(server.url).port}`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
