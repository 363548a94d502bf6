//! Model stage: the one rule for what a record is — device activity, a
//! launch, a host operation — written once for every provider, so that no
//! analysis decides it again.
//!
//! | provider | device activity | launch | what correlates them |
//! |---|---|---|---|
//! | Kineto (CUDA, ROCm) | `kernel` → [`SliceClass::Kernel`]; `gpu_memcpy`, `gpu_memset` → memory ops | a `cuda_runtime`/`cuda_driver`/`hip_runtime`/`hip_driver` call named by [`launch_kind`], or one a kernel correlates with | `args.correlation` (see [`crate::provider`]) |
//! | Kineto (MTIA) | `mtia_ccp_events`: `dma_request` → [`SliceClass::Memcpy`] (a DMA transfer, `args.direction` host↔device), every other name → [`SliceClass::Kernel`] (the command processor's compute jobs, each carrying the `correlation` of its `mtia_runtime` call) | an `mtia_runtime` call a kernel correlates with (`runFunction - job_prep_and_submit_for_execution`) | `args.correlation` |
//! | Nsight Systems | `CUPTI_ACTIVITY_KIND_KERNEL` → [`SliceClass::Kernel`]; `..._MEMCPY`, `..._MEMSET` → memory ops; `..._SYNCHRONIZATION` (the host waiting in a sync call) → [`SliceClass::Runtime`]; NVTX push/pop and start/end ranges → [`SliceClass::UserAnnotation`] on their thread | `CUPTI_ACTIVITY_KIND_RUNTIME` rows (runtime and driver, `_vNNNN` suffix dropped) named by [`launch_kind`] or correlated; backtrace rows (`eventClass` 67) are not calls | `correlationId` per process (`globalPid >> 24`) |
//! | rocprofv3 | kernel dispatches, memory copies | HIP API calls named by [`launch_kind`] or correlated | correlation id per process |
//! | XLA XSpace | events on `/device:GPU:N` `Stream #S` lines: with `memcpy_details` → [`SliceClass::Memcpy`], `memset_details` → [`SliceClass::Memset`], else [`SliceClass::Kernel`] | `/host:CPU` events carrying `correlation_id`, through [`runtime_call`] (TensorFlow names a launch after its kernel: it becomes a launch when the kernel correlates) | `correlation_id` stat |
//!
//! Communication: a kernel is a collective when [`is_collective`] says so
//! by its name's function (NCCL, RCCL, MSCCL, and the custom all-reduce
//! kernels of vLLM, SGLang and TensorRT-LLM), for every provider alike.
//!
//! A runtime call that is not a launch (a memcpy API, a synchronisation, an
//! attribute query) is [`SliceClass::Runtime`]; the model makes it a
//! [`SliceClass::Launch`] when a kernel of its own process correlates with
//! it (a memory op correlating with its memcpy API call does not).

use crate::slice::{LaunchKind, SliceClass};

/// The launch kind a runtime or driver API call's name announces, if any:
/// graph launches (`cudaGraphLaunch`, `hipGraphLaunch`) first, then kernel
/// launches (`cudaLaunchKernel`, `cuLaunchKernel`, `hipModuleLaunchKernel`,
/// `cudaLaunchCooperativeKernel`...). A call whose name is not listed still
/// becomes a launch when a kernel correlates with it.
///
/// ```
/// use opguard_model::classify::launch_kind;
/// use opguard_model::LaunchKind;
///
/// assert_eq!(launch_kind("cudaGraphLaunch_v10000"), Some(LaunchKind::Graph));
/// assert_eq!(launch_kind("cuLaunchKernelEx"), Some(LaunchKind::Direct));
/// assert_eq!(launch_kind("hipExtModuleLaunchKernel"), Some(LaunchKind::Direct));
/// assert_eq!(launch_kind("cudaMemcpyAsync"), None);
/// ```
pub fn launch_kind(api_name: &str) -> Option<LaunchKind> {
    if api_name.contains("GraphLaunch") {
        Some(LaunchKind::Graph)
    } else if api_name.contains("LaunchKernel")
        || api_name.contains("LaunchCooperativeKernel")
        || api_name.starts_with("cuLaunch")
        || api_name.starts_with("hipLaunch")
        || api_name.contains("ModuleLaunch")
    {
        Some(LaunchKind::Direct)
    } else {
        None
    }
}

/// A host runtime or driver call: a launch when its name says so
/// ([`launch_kind`]), else [`SliceClass::Runtime`] until a kernel
/// correlates with it.
pub fn runtime_call(api_name: &str) -> SliceClass {
    match launch_kind(api_name) {
        Some(kind) => SliceClass::Launch(kind),
        None => SliceClass::Runtime,
    }
}

/// Kineto's runtime and driver categories (and the legacy `Runtime`).
pub fn is_kineto_runtime_category(cat: &str) -> bool {
    matches!(
        cat,
        "cuda_runtime" | "cuda_driver" | "hip_runtime" | "hip_driver" | "mtia_runtime"
    ) || cat.eq_ignore_ascii_case("runtime")
}

/// MTIA's command-processor category: its `dma_request` events are memory
/// transfers, every other event a compute job.
pub const MTIA_DEVICE_CATEGORY: &str = "mtia_ccp_events";

/// What a Chrome-trace complete event of category `cat` and name `name` is,
/// by Kineto's categories (which Perfetto's and opguard's exports keep).
///
/// ```
/// use opguard_model::classify::kineto_slice_class;
/// use opguard_model::{LaunchKind, SliceClass};
///
/// assert_eq!(kineto_slice_class("kernel", "void gemm<float>()"), SliceClass::Kernel);
/// assert_eq!(kineto_slice_class("cuda_runtime", "cudaLaunchKernel"), SliceClass::Launch(LaunchKind::Direct));
/// assert_eq!(kineto_slice_class("cuda_runtime", "cudaMemcpyAsync"), SliceClass::Runtime);
/// assert_eq!(kineto_slice_class("mtia_ccp_events", "dma_request"), SliceClass::Memcpy);
/// assert_eq!(kineto_slice_class("mtia_ccp_events", "add-dtype_Float"), SliceClass::Kernel);
/// assert_eq!(kineto_slice_class("cpu_op", "aten::mm"), SliceClass::CpuOp);
/// ```
pub fn kineto_slice_class(cat: &str, name: &str) -> SliceClass {
    if is_kineto_runtime_category(cat) {
        return runtime_call(name);
    }
    match cat {
        "gpu_memcpy" => SliceClass::Memcpy,
        "gpu_memset" => SliceClass::Memset,
        "cpu_op" => SliceClass::CpuOp,
        "user_annotation" => SliceClass::UserAnnotation,
        "gpu_user_annotation" => SliceClass::GpuUserAnnotation,
        "python_function" => SliceClass::PythonFunction,
        MTIA_DEVICE_CATEGORY if name == "dma_request" => SliceClass::Memcpy,
        MTIA_DEVICE_CATEGORY => SliceClass::Kernel,
        c if c.eq_ignore_ascii_case("kernel") => SliceClass::Kernel,
        _ => SliceClass::Other,
    }
}

/// Whether host slices of this class carry a Kineto `External id` that ties
/// an operator to the launches and kernels it caused: runtime calls,
/// operators and annotations.
pub fn carries_host_external_id(class: SliceClass) -> bool {
    class.is_runtime() || matches!(class, SliceClass::CpuOp | SliceClass::UserAnnotation)
}

/// Whether a kernel is a collective (communication) kernel, by its name's
/// function: NCCL's and RCCL's kernels (a function named `nccl...Kernel...`:
/// `ncclKernel_AllReduce_RING_LL_Sum_float`, `ncclDevKernel_SendRecv`, older
/// NCCL's `ncclAllReduceRingLLKernel_sum_f32`; RCCL keeps NCCL's names, some
/// builds write `rccl`), MSCCL's (`mscclKernel_*`), and the custom
/// all-reduce kernels inference servers launch instead of NCCL for small
/// tensors: vLLM's and SGLang's `cross_device_reduce_1stage` /
/// `cross_device_reduce_2stage`, TensorRT-LLM's (and SGLang's copy of it)
/// `oneShotAllReduceKernel` / `twoShotAllReduceKernel`. A custom all-reduce
/// also adds (it reduces as it communicates) and is counted as
/// communication: it is the collective the program waits on. Anything else
/// is computation.
///
/// ```
/// use opguard_model::classify::is_collective;
///
/// assert!(is_collective("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"));
/// assert!(is_collective("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
/// assert!(is_collective("void ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)"));
/// assert!(is_collective("void vllm::cross_device_reduce_1stage<__half, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __half*, int, int)"));
/// assert!(!is_collective("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()"));
/// assert!(!is_collective("nccl")); // a bare word is no kernel name
/// ```
pub fn is_collective(kernel_name: &str) -> bool {
    let canonical = opguard_kernel_name::canonicalize(kernel_name);
    let function = canonical.short_name();
    let function = function.rsplit("::").next().unwrap_or(&function);
    const LIBRARIES: [&str; 3] = ["nccl", "rccl", "msccl"];
    const CUSTOM_ALL_REDUCE: [&str; 4] = [
        "cross_device_reduce_1stage",
        "cross_device_reduce_2stage",
        "oneShotAllReduceKernel",
        "twoShotAllReduceKernel",
    ];
    let library_kernel =
        LIBRARIES.iter().any(|l| function.starts_with(l)) && function.contains("Kernel");
    library_kernel || CUSTOM_ALL_REDUCE.contains(&function)
}
