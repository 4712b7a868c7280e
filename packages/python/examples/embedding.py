# Embedding slotwise in Python: a scenario's plan (run from the repository's root).
import slotwise

with open("docs/examples/node-down.yaml") as scenario:
    plan = slotwise.reconcile(slotwise.read_scenario(scenario.read()))

for group in plan["groups"]:
    for stop in group["stops"]:
        print(f"{group['group']}: stop {stop['allocation']} ({stop['message']})")
    for placement in group["placements"]:
        print(f"{group['group']}: place slot {placement['name-index']} ({placement['message']})")
