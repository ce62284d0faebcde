"""Warning-styled roadside notices describing activity clearly outside the driving path.

These are training counter-examples for the learned driving model: each sentence
reads like a V2X warning but describes a road user, vehicle, work, animal, object
or restriction that is separated from, moving away from, or otherwise outside the
vehicle's path, so a good driver reads it and carries on. Written blind on
2026-12-06 by a helper engineer who never saw the evaluation texts.

Why they exist (issue 19, round 14): position-free paraphrase rows taught the
model "a caution about a road user, no position: slow down", and no row said
otherwise for a warning-styled notice about activity outside the path (App.
H's non-actionable warnings then slowed it). ``source_v2.with_offpath_notices``
(``lantern train --offpath-notices``) trains no-warning rows with them. Of the
96 written, the two that shared at least half their words with a text of the
development language check (``lantern_bringup/data/dev_language.yaml``) were
removed; a test keeps every notice below that against every text the
evaluation holds out.
"""

NOTICES: tuple[str, ...] = (
    # pedestrians (11)
    "Notice: a group of pedestrians is gathered on the footbridge high above the carriageway.",
    "Heads-up: a jogger is running along the riverside towpath beyond the railing.",
    "A dog walker is crossing the park on the far side of the boundary wall.",
    "Advisory: pedestrians are queuing inside the station forecourt, well back from the kerb.",
    "Attention: a school party is walking through the underpass beneath the junction.",
    "Be aware of a large crowd leaving the stadium along the concourse behind the crash barriers.",
    "Elderly man seated on a bench in the landscaped verge behind the guardrail.",
    "Warning: walkers are following the canal footpath on the opposite bank of the water.",
    "Caution: a parent pushing a buggy is heading away from the road down a side alley.",
    "Take care: someone is exercising several dogs on the enclosed common behind the hedge.",
    "Passengers waiting on the raised tram platform, behind the safety railing.",
    # cyclists (8)
    "Caution: cyclists are riding on the segregated cycle track behind the kerb and bollards.",
    "Notice: a cycling club has gathered in the cafe car park off the main road.",
    "A cyclist is pedalling away from the junction along the greenway.",
    "Heads-up: a cyclist is repairing a puncture on the pavement beyond the grass verge.",
    "Advisory: mountain bikers are descending the forest trail on the other side of the valley.",
    "Be aware that riders are using the separate cycle bridge downstream of this crossing.",
    "Attention: youngsters on bikes are circling inside the fenced playground.",
    "Lone cyclist on the old railway path, down below the embankment.",
    # motorcyclists (5)
    "Caution: a motorcyclist is parked on the forecourt of the filling station.",
    "Notice: motorcycle training is under way in the closed test yard next to the highway.",
    "Heads-up: several motorcyclists have pulled into the service area on the opposite carriageway.",
    "A scooter rider is departing along the slip road leading off the route.",
    "Take care, bikers are meeting at the roadside cafe and are contained within its car park.",
    # cars (7)
    "Warning: a broken-down car sits in the lay-by, its occupants waiting behind the barrier.",
    "Caution: two cars have collided in the retail park car park; the incident is contained there.",
    "A damaged car is being recovered on the far side of the central reservation.",
    "Advisory: a learner driver is practising manoeuvres in the empty industrial estate car park.",
    "Be aware: a car alarm is sounding inside the multi-storey car park.",
    "Vehicles queuing for the car wash on the petrol station forecourt.",
    "Heads-up: a stalled hatchback is on the frontage road behind the concrete divider.",
    # vans (5)
    "Caution: a delivery van is unloading in the loading bay behind the shops.",
    "Notice: a removals van is parked across a house driveway on the side street.",
    "A courier van is turning into the depot yard, away from the main road.",
    "Attention: a mobile library van is parked in the village hall grounds.",
    "Take care: vans are manoeuvring inside the distribution centre yard behind the security fence.",
    # lorries / trucks (6)
    "Warning: an articulated lorry has jackknifed in the lorry park at the motorway services.",
    "Notice: lorries are queuing at the port gate on the separate freight approach road.",
    "Tipper truck unloading aggregate inside the quarry compound.",
    "Caution: a fuel tanker is parked at the depot behind the perimeter fence.",
    "Heads-up: a heavy goods vehicle has broken down on the opposite carriageway beyond the median barrier.",
    "Be aware that a refuse lorry is collecting bins along the cul-de-sac off the main road.",
    # buses (5)
    "Notice: a bus has broken down inside the bus station and its passengers are in the concourse.",
    "Caution: a coach is unloading tourists in the coach park beside the castle.",
    "Advisory: buses are running on the guided busway alongside, behind the kerbed barrier.",
    "A school bus is boarding pupils in the school grounds behind the gates.",
    "Heads-up: a rail replacement bus is parked up in the station lay-by.",
    # trams / trains (6)
    "Caution: a freight train is passing on the railway line beyond the fence.",
    "Notice: a tram is being held at the depot across the river.",
    "Heads-up: engineering trains are working on the tracks beneath the road bridge.",
    "Heritage steam train running on the embankment across the valley.",
    "Attention: trams are diverted along the far side of the square, heading away from the road.",
    "Be aware: a long passenger train is crossing the viaduct far overhead.",
    # emergency vehicles (7)
    "Warning: an ambulance is attending an incident inside the shopping centre car park.",
    "Notice: fire crews are dealing with a bin fire in the yard behind the warehouse.",
    "Caution: police vehicles are parked at an incident on the parallel road across the railway.",
    "An ambulance with blue lights is heading away on the opposite carriageway.",
    "Fire engine carrying out a drill in the fire station yard.",
    "Advisory: police are attending a collision on the motorway below the overpass.",
    "Take care: emergency services are at a property set well back behind its garden wall.",
    # farm machinery (6)
    "Caution: a tractor is ploughing in the field behind the hedgerow.",
    "Notice: a combine harvester is working in the field beyond the drainage ditch.",
    "Heads-up: farm machinery is parked in the farmyard at the end of the private track.",
    "A tractor and trailer are moving along a farm track that runs parallel behind the fence.",
    "Attention: a crop sprayer is operating on the far side of the river.",
    "Be aware of a slurry tanker being filled in the yard beside the farm shop.",
    # construction / maintenance (8)
    "Warning: roadworks on the other carriageway, beyond the central barrier.",
    "Notice: construction crews are working on the building site behind the hoarding.",
    "Caution: a crane is lifting materials inside the fenced construction compound.",
    "Heads-up: maintenance crews are trimming trees on the railway cutting beyond the fence.",
    "Advisory: resurfacing on the side road is complete and the crew has left.",
    "Painters are working on the railings of the pedestrian bridge across the river.",
    "Attention: an excavator is digging behind the barriers in the corner of the retail park.",
    "Take care: utility crews are working on the verge of a slip road across the interchange.",
    # animals (7)
    "Caution: horses are grazing in the paddock behind the post and rail fence.",
    "Notice: a herd of cows is being moved along the bridleway across the stream.",
    "Heads-up: deer have been sighted in the woodland beyond the deer fence.",
    "Sheep penned in the livestock market yard next to the road.",
    "Advisory: a loose dog is running about inside the enclosed recreation ground.",
    "Geese on the pond in the park, behind the railings.",
    "Be aware: horse riders are using the bridleway on the other side of the hedge.",
    # objects / debris (6)
    "Notice: collision debris has been swept onto the hard standing of the lay-by.",
    "Caution: a fallen tree is lying across a woodland footpath beyond the fence.",
    "Heads-up: a spilled load of boxes is lying in the yard of the distribution depot.",
    "Scaffolding poles have fallen inside the fenced building site.",
    "Advisory: a dumped mattress lies on the far side of the verge, in the field gateway.",
    "Take care: broken glass is scattered on the pavement across the dual carriageway.",
    # restrictions / closures / events (7)
    "Notice: the retail park car park is closed for resurfacing.",
    "Warning: a market is being held in the pedestrianised square beside the town hall.",
    "Caution: the towpath on the far bank of the canal is closed for repairs.",
    "Heads-up: a fun run is taking place on the closed roads inside the country park.",
    "A street party is under way in the closed cul-de-sac off the high street.",
    "Attention: a weight restriction applies on the old bridge, which carries a parallel road away from the route.",
    "Be aware that a funfair is operating on the common beyond the perimeter fence.",
)
