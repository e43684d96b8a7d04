//! Raw FFI bindings to kgrt, the kgen runtime: every public declaration of
//! `runtime/kgrt.h`, `kgrt_alloc.h`, `kgrt_weights.h`, `kgrt_paged.h` and the
//! kernel-table ABI of `kgrt_table.h`, spelled as the headers spell them.
//!
//! The declarations go through four small macros that also record what they
//! declare (`FUNCTIONS`, `CONSTANTS`, `TYPES`, `STRUCTS`, `OPAQUE`): the drift
//! test (`tests/drift.rs`) compiles a C program from those records against
//! the headers with the system C compiler and fails on any difference in a
//! size, an alignment, a field's offset or size, a constant, a function's
//! type, or a declaration one side has and the other lacks.
//!
//! C enums are `u32` type aliases with their values as constants (GCC gives
//! an enum of non-negative values the type `unsigned int`). Everything here
//! is `unsafe` to call; the `kgrt` crate is the safe API.
#![allow(non_camel_case_types)]
#![allow(clippy::upper_case_acronyms)]

pub use std::os::raw::{c_char, c_int, c_void};

/// A struct of the headers: its name, size, alignment and fields (name,
/// offset, size), as Rust lays it out.
#[doc(hidden)]
pub struct CStruct {
    pub name: &'static str,
    pub size: usize,
    pub align: usize,
    pub fields: Vec<(&'static str, usize, usize)>,
}

/// A function of the headers: its name, parameter types and return type as
/// Rust spells them (`()` for void).
#[doc(hidden)]
pub struct CFn {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub ret: &'static str,
}

#[doc(hidden)]
pub fn size_of_pointee<T>(_: *const T) -> usize {
    std::mem::size_of::<T>()
}

macro_rules! c_consts {
    ($( $(#[$m:meta])* pub const $name:ident : $ty:ty = $val:expr ; )*) => {
        $( $(#[$m])* pub const $name: $ty = $val; )*
        /// Every constant declared here, with its value.
        #[doc(hidden)]
        pub const CONSTANTS: &[(&str, i128)] = &[ $( (stringify!($name), $name as i128) ),* ];
    };
}

macro_rules! c_types {
    ($( $(#[$m:meta])* pub type $name:ident = $ty:ty ; )*) => {
        $( $(#[$m])* pub type $name = $ty; )*
        /// Every type alias declared here (C enums), with its size and alignment.
        #[doc(hidden)]
        pub const TYPES: &[(&str, usize, usize)] = &[
            $( (stringify!($name), std::mem::size_of::<$name>(), std::mem::align_of::<$name>()) ),*
        ];
    };
}

macro_rules! c_opaque {
    ($( $(#[$m:meta])* $name:ident ),* $(,)?) => {
        $( $(#[$m])* #[repr(C)] pub struct $name { _private: [u8; 0] } )*
        /// Every opaque type declared here.
        #[doc(hidden)]
        pub const OPAQUE: &[&str] = &[ $( stringify!($name) ),* ];
    };
}

macro_rules! c_structs {
    ($( $(#[$m:meta])* pub struct $name:ident {
        $( $(#[$fm:meta])* pub $field:ident : $ty:ty ),* $(,)?
    } )*) => {
        $(
            $(#[$m])*
            #[repr(C)]
            #[derive(Copy, Clone)]
            pub struct $name { $( $(#[$fm])* pub $field: $ty ),* }
        )*
        /// Every struct declared here, as Rust lays it out.
        #[doc(hidden)]
        pub fn structs() -> Vec<CStruct> {
            vec![ $( {
                let u = std::mem::MaybeUninit::<$name>::uninit();
                let base = u.as_ptr() as usize;
                CStruct {
                    name: stringify!($name),
                    size: std::mem::size_of::<$name>(),
                    align: std::mem::align_of::<$name>(),
                    fields: vec![ $( {
                        // SAFETY: addr_of! on a field of an uninitialised
                        // value computes its address without reading it.
                        let p = unsafe { std::ptr::addr_of!((*u.as_ptr()).$field) };
                        (stringify!($field), p as usize - base, size_of_pointee(p))
                    } ),* ],
                }
            } ),* ]
        }
    };
}

macro_rules! c_ret {
    () => {
        "()"
    };
    ($t:ty) => {
        stringify!($t)
    };
}

macro_rules! c_fns {
    ($( $(#[$m:meta])* pub fn $name:ident ( $( $arg:ident : $ty:ty ),* $(,)? ) $( -> $ret:ty )? ; )*) => {
        extern "C" {
            $( $(#[$m])* pub fn $name( $( $arg: $ty ),* ) $( -> $ret )?; )*
        }
        /// Every function declared here, with its types as Rust spells them.
        #[doc(hidden)]
        pub const FUNCTIONS: &[CFn] = &[ $( CFn {
            name: stringify!($name),
            params: &[ $( stringify!($ty) ),* ],
            ret: c_ret!($($ret)?),
        } ),* ];
    };
}

c_types! {
    /// `kgrt_status_t`: `KGRT_STATUS_*`.
    pub type kgrt_status_t = u32;
    /// `kgrt_dtype_t`: `KGRT_DTYPE_*`.
    pub type kgrt_dtype_t = u32;
    /// `kgrt_space_t`: `KGRT_SPACE_*`.
    pub type kgrt_space_t = u32;
    /// `kgrt_arg_kind_t`: `KGRT_ARG_*`.
    pub type kgrt_arg_kind_t = u32;
    /// `kgrt_collective_t`: `KGRT_COLLECTIVE_*`.
    pub type kgrt_collective_t = u32;
    /// `kgrt_weights_format_t`: `KGRT_WEIGHTS_FORMAT_*`.
    pub type kgrt_weights_format_t = u32;
    /// `kgrt_meta_type_t`: `KGRT_META_*`.
    pub type kgrt_meta_type_t = u32;
}

c_consts! {
    // kgrt.h
    pub const KGRT_STATUS_OK: kgrt_status_t = 0;
    pub const KGRT_STATUS_INVALID_ARGUMENT: kgrt_status_t = 1;
    pub const KGRT_STATUS_UNAVAILABLE: kgrt_status_t = 2;
    pub const KGRT_STATUS_NOT_FOUND: kgrt_status_t = 3;
    pub const KGRT_STATUS_NO_MATCHING_ARCH: kgrt_status_t = 4;
    pub const KGRT_STATUS_INVALID_CODE_OBJECT: kgrt_status_t = 5;
    pub const KGRT_STATUS_MISSING_KERNEL: kgrt_status_t = 6;
    pub const KGRT_STATUS_ABI_MISMATCH: kgrt_status_t = 7;
    pub const KGRT_STATUS_OUT_OF_MEMORY: kgrt_status_t = 8;
    pub const KGRT_STATUS_OUT_OF_RANGE: kgrt_status_t = 9;
    pub const KGRT_STATUS_FAILED_PRECONDITION: kgrt_status_t = 10;
    pub const KGRT_STATUS_DEVICE_ERROR: kgrt_status_t = 11;
    pub const KGRT_STATUS_INTERNAL: kgrt_status_t = 12;
    pub const KGRT_ERROR_MESSAGE_MAX: usize = 512;
    pub const KGRT_MAX_RANKS: u32 = 64;
    pub const KGRT_COMM_ID_BYTES: usize = 128;
    pub const KGRT_COMM_ID_TEXT: usize = 2 * KGRT_COMM_ID_BYTES + 1;
    pub const KGRT_COMM_TICK_MS: u32 = 50;
    // kgrt_table.h
    pub const KGRT_TABLE_ABI: u32 = 12;
    pub const KGRT_MAX_DIMS: usize = 8;
    pub const KGRT_EXPR_SYMS: usize = 4;
    pub const KGRT_ARG_NAME_MAX: usize = 48;
    pub const KGRT_MAX_BUFFER_BYTES: u64 = 1 << 48;
    pub const KGRT_MAX_ELEMENTS: u64 = 1 << 48;
    pub const KGRT_MAX_DIM: i32 = i32::MAX;
    pub const KGRT_DTYPE_F32: kgrt_dtype_t = 0;
    pub const KGRT_DTYPE_F16: kgrt_dtype_t = 1;
    pub const KGRT_DTYPE_BF16: kgrt_dtype_t = 2;
    pub const KGRT_DTYPE_I32: kgrt_dtype_t = 3;
    pub const KGRT_DTYPE_Q8_0: kgrt_dtype_t = 4;
    pub const KGRT_DTYPE_Q4_0: kgrt_dtype_t = 5;
    pub const KGRT_DTYPE_Q4_K: kgrt_dtype_t = 6;
    pub const KGRT_DTYPE_Q6_K: kgrt_dtype_t = 7;
    pub const KGRT_SYM_RANK: u32 = 0x1;
    pub const KGRT_SYM_COUNT: u32 = 0x2;
    pub const KGRT_TENSOR_STATE: u32 = 0x1;
    pub const KGRT_SPACE_ARENA: kgrt_space_t = 0;
    pub const KGRT_SPACE_INPUT: kgrt_space_t = 1;
    pub const KGRT_SPACE_WEIGHT: kgrt_space_t = 2;
    pub const KGRT_SPACE_OUTPUT: kgrt_space_t = 3;
    pub const KGRT_ARG_BUFFER: kgrt_arg_kind_t = 0;
    pub const KGRT_ARG_I64: kgrt_arg_kind_t = 1;
    pub const KGRT_KERNEL_EARLY_LAUNCH: u32 = 0x1;
    pub const KGRT_COLLECTIVE_NONE: kgrt_collective_t = 0;
    pub const KGRT_COLLECTIVE_ALL_REDUCE: kgrt_collective_t = 1;
    pub const KGRT_COLLECTIVE_ALL_GATHER: kgrt_collective_t = 2;
    pub const KGRT_COLLECTIVE_BROADCAST: kgrt_collective_t = 3;
    pub const KGRT_MOVED_NONE: i16 = -2;
    // kgrt_weights.h
    pub const KGRT_WEIGHTS_MAX_DIMS: usize = 8;
    pub const KGRT_WEIGHTS_NAME_MAX: usize = 255;
    pub const KGRT_WEIGHTS_FORMAT_AUTO: kgrt_weights_format_t = 0;
    pub const KGRT_WEIGHTS_FORMAT_GGUF: kgrt_weights_format_t = 1;
    pub const KGRT_WEIGHTS_FORMAT_SAFETENSORS: kgrt_weights_format_t = 2;
    pub const KGRT_META_U8: kgrt_meta_type_t = 0;
    pub const KGRT_META_I8: kgrt_meta_type_t = 1;
    pub const KGRT_META_U16: kgrt_meta_type_t = 2;
    pub const KGRT_META_I16: kgrt_meta_type_t = 3;
    pub const KGRT_META_U32: kgrt_meta_type_t = 4;
    pub const KGRT_META_I32: kgrt_meta_type_t = 5;
    pub const KGRT_META_F32: kgrt_meta_type_t = 6;
    pub const KGRT_META_BOOL: kgrt_meta_type_t = 7;
    pub const KGRT_META_STRING: kgrt_meta_type_t = 8;
    pub const KGRT_META_ARRAY: kgrt_meta_type_t = 9;
    pub const KGRT_META_U64: kgrt_meta_type_t = 10;
    pub const KGRT_META_I64: kgrt_meta_type_t = 11;
    pub const KGRT_META_F64: kgrt_meta_type_t = 12;
    pub const KGRT_BIND_REFUSE_UNUSED: u32 = 0x1;
}

c_opaque! {
    /// An open device (`kgrt_device_open`).
    kgrt_device_t,
    /// A model loaded on a device (`kgrt_model_load`).
    kgrt_model_t,
    /// A communicator of a split model's ranks.
    kgrt_comm_t,
    /// An open weight file.
    kgrt_weights_t,
    /// A paged KV cache's blocks.
    kgrt_kv_pool_t,
    /// One sequence's block table in a pool.
    kgrt_kv_seq_t,
    /// One step of a batched table.
    kgrt_batch_t,
}

c_structs! {
    /// The caller's allocator (NULL pointer: malloc/free).
    pub struct kgrt_allocator_t {
        pub alloc: Option<unsafe extern "C" fn(user: *mut c_void, size: usize) -> *mut c_void>,
        pub free: Option<unsafe extern "C" fn(user: *mut c_void, ptr: *mut c_void)>,
        pub user: *mut c_void,
    }
    /// A status and its one-line message.
    pub struct kgrt_error_t {
        pub status: kgrt_status_t,
        pub message: [c_char; KGRT_ERROR_MESSAGE_MAX],
    }
    /// A communicator's id, for ranks in several processes.
    pub struct kgrt_comm_id_t {
        pub bytes: [u8; KGRT_COMM_ID_BYTES],
    }
    /// The device memory a model takes, in bytes.
    pub struct kgrt_memory_t {
        pub total: u64,
        pub arena: u64,
        pub inputs: u64,
        pub weights: u64,
        pub outputs: u64,
        pub state: u64,
    }
    /// One plan step, profiled.
    pub struct kgrt_step_profile_t {
        pub step: u32,
        pub kernel: *const c_char,
        pub launched: c_int,
        pub workgroups: u32,
        pub us: f64,
        pub bytes: u64,
    }
    /// `scale * sym[0] * sym[1] * ...` (entries < 0 unused).
    pub struct kgrt_expr_t {
        pub scale: i64,
        pub sym: [i16; KGRT_EXPR_SYMS],
    }
    /// A named run-time dim and its max.
    pub struct kgrt_sym_t {
        pub name: *const c_char,
        pub max: i64,
        pub flags: u32,
    }
    /// A dimension: a constant (sym < 0) or a symbol.
    pub struct kgrt_dim_t {
        pub value: i64,
        pub sym: i32,
    }
    /// An input, weight or output of a model.
    pub struct kgrt_tensor_info_t {
        pub name: *const c_char,
        pub dtype: kgrt_dtype_t,
        pub rank: u32,
        pub dims: [kgrt_dim_t; KGRT_MAX_DIMS],
        pub flags: u32,
        pub split: u32,
        pub parts: u32,
    }
    /// One kernel argument as the kernel declares it (`name`: its
    /// parameter's name, or null).
    pub struct kgrt_kernel_arg_t {
        pub kind: kgrt_arg_kind_t,
        pub offset: u32,
        pub size: u32,
        pub name: *const c_char,
    }
    /// One kernel of a code object.
    pub struct kgrt_kernel_t {
        pub name: *const c_char,
        pub block_size: u32,
        pub kernarg_size: u32,
        pub num_args: u32,
        pub args: *const kgrt_kernel_arg_t,
        pub wave_size: u32,
        pub lds_bytes: u32,
        pub vgprs: u32,
        pub sgprs: u32,
        pub scratch_bytes: u32,
        pub dyn_lds_bytes: u32,
        pub flags: u32,
    }
    /// What a step passes for one kernel argument.
    pub struct kgrt_step_arg_t {
        pub space: kgrt_space_t,
        pub index: u32,
        pub offset: u64,
        pub bytes: kgrt_expr_t,
        pub value: kgrt_expr_t,
        pub moved: kgrt_expr_t,
        pub name: *const c_char,
    }
    /// One launch (or collective) of the plan.
    pub struct kgrt_step_t {
        pub kernel: u32,
        pub units: kgrt_expr_t,
        pub per_block: u32,
        pub repeat: u32,
        pub select: kgrt_expr_t,
        pub select_min: i64,
        pub select_max: i64,
        pub args: *const kgrt_step_arg_t,
        pub collective: kgrt_collective_t,
        pub dtype: kgrt_dtype_t,
        pub rank: i32,
    }
    /// Everything built for one architecture.
    pub struct kgrt_arch_table_t {
        pub arch: *const c_char,
        pub triple: *const c_char,
        pub wave_size: u32,
        pub image: *const u8,
        pub image_size: usize,
        pub image_hash: u64,
        pub sim_image: *const u8,
        pub sim_image_size: usize,
        pub sim_image_hash: u64,
        pub num_kernels: u32,
        pub kernels: *const kgrt_kernel_t,
        pub num_steps: u32,
        pub steps: *const kgrt_step_t,
        pub arena_bytes: u64,
        pub arena_align: u32,
        pub arena_zero_bytes: u64,
    }
    /// A model's interface and every architecture built for it.
    pub struct kgrt_model_table_t {
        pub abi: u32,
        pub name: *const c_char,
        pub kgen_version: *const c_char,
        pub num_syms: u32,
        pub syms: *const kgrt_sym_t,
        pub num_inputs: u32,
        pub inputs: *const kgrt_tensor_info_t,
        pub num_weights: u32,
        pub weights: *const kgrt_tensor_info_t,
        pub num_outputs: u32,
        pub outputs: *const kgrt_tensor_info_t,
        pub num_arches: u32,
        pub arches: *const *const kgrt_arch_table_t,
        pub ranks: u32,
    }
    /// One tensor of a weight file.
    pub struct kgrt_weight_info_t {
        pub name: *const c_char,
        pub alias: *const c_char,
        pub dtype: kgrt_dtype_t,
        pub ndim: u32,
        pub shape: [i64; KGRT_WEIGHTS_MAX_DIMS],
        pub file_dims: [i64; KGRT_WEIGHTS_MAX_DIMS],
        pub numel: u64,
        pub bytes: usize,
        pub data: *const c_void,
        pub offset: u64,
        pub file: u32,
    }
    /// A metadata array value (`type` in C).
    pub struct kgrt_meta_array_t {
        pub r#type: kgrt_meta_type_t,
        pub count: u64,
        pub data: *const u8,
        pub next: *const u8,
        pub index: u64,
    }
    /// One sequence's sampling in a step.
    pub struct kgrt_sampling_t {
        pub temperature: f32,
        pub top_p: f32,
        pub min_p: f32,
        pub top_k: i32,
        pub seed: i32,
    }
}

// SAFETY: tables are immutable C data (kgrt_table.h: "everything here is
// const data"); generated tables are static.
unsafe impl Sync for kgrt_model_table_t {}
unsafe impl Sync for kgrt_arch_table_t {}

c_fns! {
    // kgrt_alloc.h
    pub fn kgrt_alloc(a: *const kgrt_allocator_t, size: usize) -> *mut c_void;
    pub fn kgrt_calloc(a: *const kgrt_allocator_t, n: usize, size: usize) -> *mut c_void;
    pub fn kgrt_free(a: *const kgrt_allocator_t, ptr: *mut c_void);
    // kgrt.h
    pub fn kgrt_status_name(status: kgrt_status_t) -> *const c_char;
    pub fn kgrt_device_open(spec: *const c_char, alloc: *const kgrt_allocator_t,
        out_device: *mut *mut kgrt_device_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_device_close(device: *mut kgrt_device_t);
    pub fn kgrt_device_name(device: *const kgrt_device_t) -> *const c_char;
    pub fn kgrt_model_load(device: *mut kgrt_device_t, table: *const kgrt_model_table_t,
        out_model: *mut *mut kgrt_model_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_unload(model: *mut kgrt_model_t);
    pub fn kgrt_model_arch(model: *const kgrt_model_t) -> *const c_char;
    pub fn kgrt_model_memory(device: *mut kgrt_device_t, table: *const kgrt_model_table_t,
        out_memory: *mut kgrt_memory_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_held_memory(model: *const kgrt_model_t, out_memory: *mut kgrt_memory_t);
    pub fn kgrt_model_reset_state(model: *mut kgrt_model_t, err: *mut kgrt_error_t)
        -> kgrt_status_t;
    pub fn kgrt_model_set_dim(model: *mut kgrt_model_t, sym: *const c_char, value: i64,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_tensor_bytes(model: *const kgrt_model_t, name: *const c_char,
        out_bytes: *mut usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_set_weight(model: *mut kgrt_model_t, name: *const c_char,
        host: *const c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_set_input(model: *mut kgrt_model_t, name: *const c_char,
        host: *const c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_run(model: *mut kgrt_model_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_set_replay(model: *mut kgrt_model_t, replay: c_int,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_replay(model: *const kgrt_model_t) -> c_int;
    pub fn kgrt_model_link(model: *mut kgrt_model_t, output: *const c_char,
        input: *const c_char, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_step_dim(model: *mut kgrt_model_t, sym: *const c_char, delta: i64,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_clear_links(model: *mut kgrt_model_t);
    pub fn kgrt_model_run_steps(model: *mut kgrt_model_t, steps: u32, collect: *const c_char,
        host: *mut c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_profile(model: *mut kgrt_model_t, reps: u32,
        out: *mut kgrt_step_profile_t, capacity: u32, out_count: *mut u32,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_time(model: *mut kgrt_model_t, warmup: u32, reps: u32,
        out_median_us: *mut f64, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_get_output(model: *mut kgrt_model_t, name: *const c_char,
        host: *mut c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_bind_device(model: *mut kgrt_model_t, name: *const c_char,
        ptr: *mut c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_unbind_device(model: *mut kgrt_model_t, name: *const c_char,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_wait(model: *mut kgrt_model_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_comm_create(ranks: u32, alloc: *const kgrt_allocator_t,
        out_comm: *mut *mut kgrt_comm_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_comm_destroy(comm: *mut kgrt_comm_t);
    pub fn kgrt_comm_ranks(comm: *const kgrt_comm_t) -> u32;
    pub fn kgrt_comm_abort(comm: *mut kgrt_comm_t, why: *const c_char);
    pub fn kgrt_comm_id_create(kind: *const c_char, out_id: *mut kgrt_comm_id_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_comm_id_text(id: *const kgrt_comm_id_t, text: *mut c_char);
    pub fn kgrt_comm_id_parse(text: *const c_char, out_id: *mut kgrt_comm_id_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_comm_init_rank(id: *const kgrt_comm_id_t, rank: u32, ranks: u32,
        timeout_ms: u32, alloc: *const kgrt_allocator_t, out_comm: *mut *mut kgrt_comm_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_join(model: *mut kgrt_model_t, comm: *mut kgrt_comm_t, rank: u32,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_rank(model: *const kgrt_model_t) -> u32;
    pub fn kgrt_model_set_weight_whole(model: *mut kgrt_model_t, name: *const c_char,
        host: *const c_void, bytes: usize, err: *mut kgrt_error_t) -> kgrt_status_t;
    // kgrt_weights.h
    pub fn kgrt_weights_open(path: *const c_char, alloc: *const kgrt_allocator_t,
        out_weights: *mut *mut kgrt_weights_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_weights_open_memory(data: *const c_void, size: usize,
        format: kgrt_weights_format_t, label: *const c_char, alloc: *const kgrt_allocator_t,
        out_weights: *mut *mut kgrt_weights_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_weights_close(weights: *mut kgrt_weights_t);
    pub fn kgrt_weights_format(weights: *const kgrt_weights_t) -> kgrt_weights_format_t;
    pub fn kgrt_weights_version(weights: *const kgrt_weights_t) -> u32;
    pub fn kgrt_weights_count(weights: *const kgrt_weights_t) -> u32;
    pub fn kgrt_weights_at(weights: *const kgrt_weights_t, i: u32)
        -> *const kgrt_weight_info_t;
    pub fn kgrt_weights_find(weights: *const kgrt_weights_t, name: *const c_char)
        -> *const kgrt_weight_info_t;
    pub fn kgrt_weights_map_name(name: *const c_char, out: *mut c_char, size: usize) -> c_int;
    pub fn kgrt_weights_meta_count(weights: *const kgrt_weights_t) -> u64;
    pub fn kgrt_weights_meta_key(weights: *const kgrt_weights_t, i: u64,
        out_type: *mut kgrt_meta_type_t) -> *const c_char;
    pub fn kgrt_weights_meta_string(weights: *const kgrt_weights_t, key: *const c_char,
        out_str: *mut *const c_char, out_len: *mut usize, err: *mut kgrt_error_t)
        -> kgrt_status_t;
    pub fn kgrt_weights_meta_int(weights: *const kgrt_weights_t, key: *const c_char,
        out_value: *mut i64, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_weights_meta_float(weights: *const kgrt_weights_t, key: *const c_char,
        out_value: *mut f64, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_weights_meta_array(weights: *const kgrt_weights_t, key: *const c_char,
        out_array: *mut kgrt_meta_array_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_meta_array_int(array: *const kgrt_meta_array_t, i: u64, out_value: *mut i64)
        -> c_int;
    pub fn kgrt_meta_array_float(array: *const kgrt_meta_array_t, i: u64,
        out_value: *mut f64) -> c_int;
    pub fn kgrt_meta_array_next_string(array: *mut kgrt_meta_array_t,
        out_str: *mut *const c_char, out_len: *mut usize) -> c_int;
    pub fn kgrt_weights_vocab_size(weights: *const kgrt_weights_t, out_vocab: *mut i64,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_model_bind_weights(model: *mut kgrt_model_t, weights: *const kgrt_weights_t,
        flags: u32, err: *mut kgrt_error_t) -> kgrt_status_t;
    // kgrt_paged.h
    pub fn kgrt_kv_pool_create(blocks: u32, block_size: u32, max_blocks: u32,
        alloc: *const kgrt_allocator_t, out_pool: *mut *mut kgrt_kv_pool_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_kv_pool_destroy(pool: *mut kgrt_kv_pool_t);
    pub fn kgrt_kv_pool_free_blocks(pool: *const kgrt_kv_pool_t) -> u32;
    pub fn kgrt_kv_pool_block_size(pool: *const kgrt_kv_pool_t) -> u32;
    pub fn kgrt_kv_pool_max_blocks(pool: *const kgrt_kv_pool_t) -> u32;
    pub fn kgrt_kv_seq_create(pool: *mut kgrt_kv_pool_t, out_seq: *mut *mut kgrt_kv_seq_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_kv_seq_destroy(seq: *mut kgrt_kv_seq_t);
    pub fn kgrt_kv_seq_reserve(seq: *mut kgrt_kv_seq_t, tokens: u32, err: *mut kgrt_error_t)
        -> kgrt_status_t;
    pub fn kgrt_kv_seq_fork(src: *mut kgrt_kv_seq_t, tokens: u32,
        out_seq: *mut *mut kgrt_kv_seq_t, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_kv_seq_blocks(seq: *const kgrt_kv_seq_t, out_count: *mut u32) -> *const i32;
    pub fn kgrt_kv_seq_capacity(seq: *const kgrt_kv_seq_t) -> u32;
    pub fn kgrt_kv_seq_shared(seq: *const kgrt_kv_seq_t) -> u32;
    pub fn kgrt_batch_create(pool: *const kgrt_kv_pool_t, max_tokens: u32, max_seqs: u32,
        alloc: *const kgrt_allocator_t, out_batch: *mut *mut kgrt_batch_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_batch_destroy(batch: *mut kgrt_batch_t);
    pub fn kgrt_batch_clear(batch: *mut kgrt_batch_t);
    pub fn kgrt_batch_add(batch: *mut kgrt_batch_t, seq: *const kgrt_kv_seq_t,
        tokens: *const i32, n: u32, pos0: u32, sampling: *const kgrt_sampling_t,
        out_row: *mut u32, err: *mut kgrt_error_t) -> kgrt_status_t;
    pub fn kgrt_batch_tokens(batch: *const kgrt_batch_t) -> u32;
    pub fn kgrt_batch_sequences(batch: *const kgrt_batch_t) -> u32;
    pub fn kgrt_batch_bind(batch: *const kgrt_batch_t, model: *mut kgrt_model_t,
        err: *mut kgrt_error_t) -> kgrt_status_t;
}

/// An error value with an empty message, ready for a call to fill.
pub fn kgrt_error_new() -> kgrt_error_t {
    kgrt_error_t {
        status: KGRT_STATUS_OK,
        message: [0; KGRT_ERROR_MESSAGE_MAX],
    }
}
