// A Deno server whose every request waits until its client goes away: the floor under 5,000 idle long polls.
//   deno run -A bench/cloud/hanging_server.ts <bare|adapter>
// `bare`: `Deno.serve` alone; `adapter`: the same handler through adapters/deno.ts (its native server), as
// `cloud/main.ts serve` runs. Prints `listening on http://127.0.0.1:<port>`.
import { serve } from "../../adapters/deno.ts";

const hang = (req: Request) =>
  new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response(""))));

if (Deno.args[0] === "adapter") {
  const { port } = await serve(hang, { port: 0 });
  console.log(`listening on http://127.0.0.1:${port}`);
} else {
  Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
  }, hang);
}
