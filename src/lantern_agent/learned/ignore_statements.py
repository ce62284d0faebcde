"""Blind counterexample statements for the learned driving model's text channel.

Two tuples of roadside-unit / traffic-centre messages that a driver reads and
then IGNORES:

- ``NEGATED``: a hazard is absent, cleared, finished, cancelled, resolved,
  gone, lifted, withdrawn, or was a false alarm.
- ``IRRELEVANT``: warning- or announcement-style text that concerns no hazard
  on the road at all (events, culture, shops, prices, sport, timetables,
  weather for later or elsewhere, civic notices, service notices, ads,
  tourism).

None of these should make the model slow down.

Written blind on 2026-12-06 by a helper engineer who never saw the evaluation
texts (development or held-out language checks, templates, paraphrase
libraries or case-study texts). No sentence contains a position or a distance
in metres.

Why they exist: issue 19, round 15. The release recipe's counterexamples hold
only 8 negated templates and 8 irrelevant sentences. Fresh checkpoints of the
round-14 recipe acted on one or two negated or irrelevant statements of the
development language check, a different one per seed. These 70 + 70 sentences
widen that training coverage: ``source_v2.with_ignore_statements`` (``lantern
train --ignore-statements``) trains no-warning rows with them, the expert
driving on; a test keeps every sentence below half its words shared with any
text the evaluation holds out.
"""

NEGATED = (
    # --- Pedestrians and crossings (10) ---
    "The pedestrian who was crossing earlier has reached the far kerb safely.",
    "Nobody is waiting at the zebra crossing any more.",
    "Update: the group of walkers near the junction has left the carriageway.",
    "All clear: the person standing in the lane has moved onto the pavement.",
    "Earlier warning withdrawn, no one is walking on the roadway now.",
    "The crossing is empty again; the pedestrian alert has been cancelled.",
    "Notice: reports of a jogger on the hard shoulder were a false alarm.",
    "The elderly man who stepped into traffic has been helped off the street.",
    "There is no longer anyone on the pedestrian crossing by the bakery.",
    "Pedestrian hazard resolved: the crowd outside the stadium has fully dispersed.",
    # --- Children and schools (6) ---
    "The child who ran after a ball is back with her parents on the footpath.",
    "School crossing patrol has finished for the day and the children have gone home.",
    "Heads-up lifted: no kids are playing near the kerb anymore.",
    "The earlier report of children on the road turned out to be mistaken.",
    "Update: the school bus has departed and all pupils are inside the building.",
    "The toddler seen near the lane was collected by an adult and is safe.",
    # --- Cyclists and riders (6) ---
    "The cyclist who fell near the roundabout has been helped up and is off the road.",
    "All clear: the bike race has passed and riders are no longer on the route.",
    "The scooter rider stopped in the lane has since moved on.",
    "Cyclist warning cancelled; the rider has turned onto the cycle path.",
    "Info: the group of mountain bikers has left the carriageway entirely.",
    "There is no longer a broken-down moped blocking the bike lane.",
    # --- Animals (7) ---
    "The deer spotted near the verge has run back into the woods.",
    "Update: the loose horse has been caught and returned to its field.",
    "Stray dog alert called off; the animal has been taken in by its owner.",
    "The flock of sheep has been herded off the lane and the gate is shut.",
    "Cattle crossing finished, the herd is back in the pasture.",
    "Advisory withdrawn: the ducks on the roadway have waddled back to the pond.",
    "No animals remain on the road after the earlier livestock escape.",
    # --- Vehicles, breakdowns and collisions (10) ---
    "The broken-down van on the inside lane has been towed away.",
    "Update: the collision near the exit has been dealt with and both cars removed.",
    "All clear: the stalled lorry has restarted and driven off.",
    "The bus that was stopped across the lane has left the stop.",
    "That delivery truck double-parked outside the shop is gone.",
    "Notice: the earlier wrong-way driver report has been confirmed as false.",
    "The ambulance has finished attending and is no longer parked in the lane.",
    "Recovery is complete; the overturned trailer is off the highway.",
    "There is no stationary vehicle on the hard shoulder any longer.",
    "The slow-moving tractor has turned off into a farm track.",
    # --- Roadworks, closures and lanes (10) ---
    "Roadworks on the high street have finished and all lanes are open.",
    "Update: the lane closure for resurfacing has been lifted.",
    "Temporary traffic lights at the works site have been removed.",
    "Announcement: the bridge closure is over and traffic may use both lanes.",
    "The construction crew has packed up and left the roadside.",
    "Diversion ended; the main road has reopened in both directions.",
    "Advisory: planned maintenance tonight has been called off.",
    "The cones narrowing the carriageway were taken away this morning.",
    "Utility works by the junction are complete and the trench is filled in.",
    "The tunnel has reopened after the earlier closure was withdrawn.",
    # --- Debris, spills and surface (8) ---
    "The fallen branch blocking the lane has been cut up and removed.",
    "Update: the oil spill near the roundabout has been cleaned up.",
    "All clear: the lost load of timber has been collected from the road.",
    "The mattress lying in the fast lane is no longer there.",
    "Gravel spilt by a tipper lorry has been swept away.",
    "Notice: the flooding in the underpass has drained and the water is gone.",
    "Reports of broken glass on the carriageway were a false alarm.",
    "Ice warning lifted; gritters have treated the surface and it is dry.",
    # --- Queues and congestion (6) ---
    "The queue at the junction has dispersed and traffic is flowing normally.",
    "Update: the tailback from the port has cleared completely.",
    "Congestion near the shopping centre has eased; no stopped traffic remains.",
    "Heads-up: the slow traffic reported earlier has gone.",
    "The line of cars waiting for the ferry has boarded and moved off.",
    "Stationary traffic warning cancelled for the ring road.",
    # --- Signals, junctions and crossings equipment (7) ---
    "The broken traffic signals at the crossroads are working again.",
    "Update: the level crossing barriers have risen and the train has passed.",
    "The signal fault reported earlier has been repaired by engineers.",
    "Reminder: the police officer directing traffic has finished and left the junction.",
    "Pedestrian crossing lights are back to normal operation.",
    "All clear: the emergency vehicle convoy has passed through the junction.",
    "Info: the earlier junction blockage alert is no longer valid.",
)

IRRELEVANT = (
    # --- Events and culture (10) ---
    "The town museum opens a new exhibition on medieval maps this Saturday.",
    "Announcement: the summer jazz festival in the park starts at seven tonight.",
    "Tickets for next month's theatre production go on sale tomorrow morning.",
    "The library is hosting a poetry reading for local authors on Thursday evening.",
    "Info: the farmers' market has moved to the church square for the winter.",
    "A free open-air cinema screening is planned at the harbour on Friday.",
    "The choir concert in the cathedral has been rescheduled to next Sunday.",
    "Heads-up: the annual book fair runs all week in the exhibition hall.",
    "Local artists are displaying paintings at the old mill gallery this month.",
    "The city orchestra announces its new season programme, featuring three premieres.",
    # --- Shops, opening hours and prices (10) ---
    "The bakery on the corner now opens at six on weekdays.",
    "Notice: the supermarket will close early on the public holiday.",
    "Fuel prices at the service station have dropped by four cents per litre.",
    "The pharmacy is offering extended evening hours until the end of the month.",
    "Winter sale at the furniture store, with discounts of up to half price.",
    "Reminder: the post office counter is shut on Wednesday afternoons.",
    "Our hardware shop has moved to a larger building near the station.",
    "Coffee is half price at the motorway cafe between two and four.",
    "The garden centre reopens on Monday after its annual stocktake.",
    "Info: the bank branch in the high street will close permanently in March.",
    # --- Sports results (8) ---
    "Final score: the home team beat the visitors three goals to one.",
    "The local rugby club has reached the regional cup final.",
    "Update: tonight's basketball match went to overtime, ending in a narrow win.",
    "Marathon results are now posted on the council website.",
    "Our cricket side lost by forty runs in yesterday's league game.",
    "Announcement: the tennis tournament semi-finals will be shown on the big screen.",
    "The swimming club broke two county records at the weekend gala.",
    "A local cyclist won silver at the national championships last week.",
    # --- Public transport timetables (8) ---
    "The number twelve bus will run every ten minutes from next week.",
    "Info: the last train to the airport now departs at half past eleven.",
    "Ferry sailings to the island follow the winter timetable from November.",
    "The night tram service resumes on Friday and Saturday evenings.",
    "Reminder: the coach to the seaside leaves from the central station at nine.",
    "New weekend timetables for regional rail services are available online.",
    "The airport shuttle has added an extra early morning departure.",
    "Notice: season tickets for commuter trains can now be renewed by phone.",
    # --- Weather outlooks for later or elsewhere (7) ---
    "Sunny spells are expected along the coast for the weekend.",
    "Forecast: light rain in the mountains on Thursday, brightening by evening.",
    "Next week looks warmer, with temperatures reaching twenty degrees.",
    "Info: the pollen count will be high in the southern counties tomorrow.",
    "A mild and dry autumn is predicted for the rest of the season.",
    "Snow is forecast for the northern ski resorts later this month.",
    "Advisory: strong sunshine expected at the beach resort, remember your sunscreen.",
    # --- Civic notices (9) ---
    "The council meeting on the new park plans takes place on Tuesday.",
    "Notice: recycling collection moves to Thursdays starting next month.",
    "Residents can register to vote at the town hall until Friday.",
    "The public consultation on the library extension closes at the end of the week.",
    "Reminder: dog licences must be renewed before the first of January.",
    "Announcement: the mayor will open the new community centre on Saturday.",
    "Applications for allotment plots are now open to all residents.",
    "The swimming pool will be closed for cleaning during the school holidays.",
    "Info: census survey forms should be returned by post this month.",
    # --- Service announcements (8) ---
    "This roadside unit will receive a software update overnight.",
    "Notice: the travel information website is down for maintenance on Sunday.",
    "Mobile phone coverage in the valley has been upgraded to the latest network.",
    "The helpline for parking permits is now open on Saturdays.",
    "Update: the journey planner app has a new version with simpler menus.",
    "Our customer service desk has moved to the ground floor of the civic centre.",
    "Public wifi is now available free of charge in the market square.",
    "Reminder: household energy readings must be submitted before the end of the quarter.",
    # --- Advertising and tourism (10) ---
    "Visit the castle gardens, open daily from ten until five.",
    "The riverside hotel has rooms available for the holiday weekend.",
    "Discover the historic old town on a guided tour every afternoon.",
    "Info: boat trips around the bay depart hourly from the pier.",
    "Try the new pizzeria by the market, now taking reservations.",
    "Heads-up: the zoo has welcomed two baby penguins this spring.",
    "The vineyard offers wine tasting sessions every Saturday afternoon.",
    "Enjoy panoramic views from the cable car, now with reduced family fares.",
    "Advertisement: the fitness studio is offering a free first month for new members.",
    "The tourist information office has new maps of hiking trails in the region.",
)

#: both kinds, the pool the training rows draw from
STATEMENTS: tuple[str, ...] = (*NEGATED, *IRRELEVANT)
