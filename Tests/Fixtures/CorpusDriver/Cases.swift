import CorpusAlamofire
import CorpusAmplifyLogging
import CorpusAmplifyPinpoint
import CorpusAmplifyReachability
import CorpusAshleymills
import CorpusAutomerge
import CorpusDataDog
import CorpusDataDogReachability
import CorpusEmbrace
import CorpusIterable
import CorpusLaunchDarkly
import CorpusNetNewsWireReachability
import CorpusOptimizely
import CorpusPocketCasts
import CorpusOpenTelemetry
import CorpusPostHog
import CorpusPromiseKit
import CorpusReactor
import CorpusRuuvi
import CorpusRxSwiftExample
import CorpusSplit
import CorpusStats
import CorpusSundialKit
import CorpusVsanthanam
import CorpusSupport

/// Every file the driver runs, by the name the corpus test uses (Tests/Fixtures/Corpus/Cases):
/// one a module, but where two ways of using the same files share one module.
let corpusCases: [String: any CorpusCase.Type] = [
    "Alamofire": CorpusAlamofire.Case.self,
    "AmplifyLogging": CorpusAmplifyLogging.Case.self,
    "AmplifyPinpoint": CorpusAmplifyPinpoint.Case.self,
    "AmplifyReachability": CorpusAmplifyReachability.Case.self,
    "Ashleymills": CorpusAshleymills.Case.self,
    "Automerge": CorpusAutomerge.Case.self,
    "DataDog": CorpusDataDog.Case.self,
    "DataDogReachability": CorpusDataDogReachability.Case.self,
    "Embrace": CorpusEmbrace.Case.self,
    "Iterable": CorpusIterable.Case.self,
    "LaunchDarkly": CorpusLaunchDarkly.Case.self,
    "NetNewsWireReachability": CorpusNetNewsWireReachability.Case.self,
    "Optimizely": CorpusOptimizely.Case.self,
    "PocketCasts": CorpusPocketCasts.Case.self,
    "OpenTelemetry": CorpusOpenTelemetry.Case.self,
    "PostHog": CorpusPostHog.Case.self,
    "PromiseKit": CorpusPromiseKit.Case.self,
    "Reactor": CorpusReactor.Case.self,
    "Ruuvi": CorpusRuuvi.Case.self,
    "RxSwiftExample": CorpusRxSwiftExample.Case.self,
    "Split": CorpusSplit.Case.self,
    "Stats": CorpusStats.Case.self,
    "SundialKit": CorpusSundialKit.Case.self,
    "VsanthanamAsync": CorpusVsanthanam.AsyncCase.self,
    "VsanthanamMonitor": CorpusVsanthanam.MonitorCase.self,
]
