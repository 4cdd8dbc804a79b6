// NetworkReachability
// SCNetworkReachability+NetworkReachability.swift
//
// MIT License
//
// Copyright (c) 2021 Varun Santhanam
// Permission is hereby granted, free of charge, to any person obtaining a copy
// of this software and associated documentation files (the  Software), to deal
//
// in the Software without restriction, including without limitation the rights
// to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
// copies of the Software, and to permit persons to whom the Software is
// furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all
// copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED  AS IS, WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
// IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
// FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
// AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
// LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
// OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
// SOFTWARE.

#if !os(watchOS)
    import SystemConfiguration

    extension SCNetworkReachability {

        static var general: SCNetworkReachability {
            get throws {
                var zeroAddress = sockaddr()
                zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
                zeroAddress.sa_family = sa_family_t(AF_INET)
                return try .forAddress(zeroAddress)
            }
        }

        static func forAddress(_ address: sockaddr) throws -> SCNetworkReachability {
            var address = address
            guard let reachability = SCNetworkReachabilityCreateWithAddress(kCFAllocatorDefault, &address) else {
                throw ReachabilityMonitor.Error.failedToCreate(SCError())
            }
            return reachability
        }

        static func forHost(_ host: String) throws -> SCNetworkReachability {
            guard let reachability = SCNetworkReachabilityCreateWithName(kCFAllocatorDefault, host) else {
                throw ReachabilityMonitor.Error.failedToCreate(SCError())
            }
            return reachability
        }
    }
#endif
