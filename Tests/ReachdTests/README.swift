// End-to-end tests of the reachd executable live here.
