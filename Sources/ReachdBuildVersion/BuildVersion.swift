// The constant `reachdVersion` is generated before each build by the ReachdBuildVersionPlugin,
// from Scripts/lib/version.sh: see Plugins/ReachdBuildVersionPlugin/plugin.swift.
//
// This module holds nothing else, so that the executables that print the version
// (reachd, reachctl) depend on no more than one string.
