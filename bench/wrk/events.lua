-- POST /v1/events with fresh eventIds: one event, or $BATCH events per request (to POST /v1/events/batch),
-- spread over $AGENTS agents, with the project's SDK auth.
local batch = tonumber(os.getenv("BATCH") or "1")
local agents = tonumber(os.getenv("AGENTS") or "4")
local prefix = os.getenv("PREFIX") or tostring(os.time())
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SECRET")
wrk.headers["x-svc-project"] = os.getenv("PROJECT")

local function event()
  n = n + 1
  return string.format('{"eventId":"%s-%d","type":"order.paid","agentId":"agent-%d","payload":{"order":%d,"total":42.5}}',
    prefix, n, n % agents, n)
end

request = function()
  if batch == 1 then return wrk.format(nil, nil, nil, event()) end
  local parts = {}
  for i = 1, batch do parts[i] = event() end
  return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(parts, ",") .. ']}')
end
