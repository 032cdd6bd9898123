// Tresor's data files (the EFF word list, the strength estimator's dictionaries and keyboard graphs) as a SwiftPM
// resource bundle, `Tresor_TresorData.resources`, next to the programs built with the tests and benchmarks. The tresor
// binary does not link this target (its generated bundle accessor would link the full Foundation): it finds the
// files itself, in that bundle or in share/tresor (TresorCore/Generator/DataFiles.swift).

/// The target exists for its resources.
enum TresorData {}
