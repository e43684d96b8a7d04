//! Error: kgrt's status and its one-line message.
use crate::sys;
use std::fmt;

/// A kgrt status other than OK (`kgrt_status_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    InvalidArgument,
    Unavailable,
    NotFound,
    NoMatchingArch,
    InvalidCodeObject,
    MissingKernel,
    AbiMismatch,
    OutOfMemory,
    OutOfRange,
    FailedPrecondition,
    DeviceError,
    Internal,
    /// A value this crate does not know (a newer kgrt).
    Other(u32),
}

impl Status {
    /// The status of a raw value; None for KGRT_STATUS_OK.
    pub fn from_raw(v: sys::kgrt_status_t) -> Option<Status> {
        Some(match v {
            sys::KGRT_STATUS_OK => return None,
            sys::KGRT_STATUS_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::KGRT_STATUS_UNAVAILABLE => Status::Unavailable,
            sys::KGRT_STATUS_NOT_FOUND => Status::NotFound,
            sys::KGRT_STATUS_NO_MATCHING_ARCH => Status::NoMatchingArch,
            sys::KGRT_STATUS_INVALID_CODE_OBJECT => Status::InvalidCodeObject,
            sys::KGRT_STATUS_MISSING_KERNEL => Status::MissingKernel,
            sys::KGRT_STATUS_ABI_MISMATCH => Status::AbiMismatch,
            sys::KGRT_STATUS_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::KGRT_STATUS_OUT_OF_RANGE => Status::OutOfRange,
            sys::KGRT_STATUS_FAILED_PRECONDITION => Status::FailedPrecondition,
            sys::KGRT_STATUS_DEVICE_ERROR => Status::DeviceError,
            sys::KGRT_STATUS_INTERNAL => Status::Internal,
            other => Status::Other(other),
        })
    }

    /// The raw value.
    pub fn raw(self) -> sys::kgrt_status_t {
        match self {
            Status::InvalidArgument => sys::KGRT_STATUS_INVALID_ARGUMENT,
            Status::Unavailable => sys::KGRT_STATUS_UNAVAILABLE,
            Status::NotFound => sys::KGRT_STATUS_NOT_FOUND,
            Status::NoMatchingArch => sys::KGRT_STATUS_NO_MATCHING_ARCH,
            Status::InvalidCodeObject => sys::KGRT_STATUS_INVALID_CODE_OBJECT,
            Status::MissingKernel => sys::KGRT_STATUS_MISSING_KERNEL,
            Status::AbiMismatch => sys::KGRT_STATUS_ABI_MISMATCH,
            Status::OutOfMemory => sys::KGRT_STATUS_OUT_OF_MEMORY,
            Status::OutOfRange => sys::KGRT_STATUS_OUT_OF_RANGE,
            Status::FailedPrecondition => sys::KGRT_STATUS_FAILED_PRECONDITION,
            Status::DeviceError => sys::KGRT_STATUS_DEVICE_ERROR,
            Status::Internal => sys::KGRT_STATUS_INTERNAL,
            Status::Other(v) => v,
        }
    }

    /// kgrt's name for it: "OUT_OF_RANGE".
    pub fn name(self) -> &'static str {
        // SAFETY: kgrt_status_name returns a static string for any value.
        unsafe { crate::str_from(sys::kgrt_status_name(self.raw())) }
    }
}

/// A failed kgrt call: its status and kgrt's one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    /// Ok(()) for KGRT_STATUS_OK, else the error `err` describes.
    pub(crate) fn check(st: sys::kgrt_status_t, err: &sys::kgrt_error_t) -> Result<()> {
        match Status::from_raw(st) {
            None => Ok(()),
            Some(status) => {
                let bytes: Vec<u8> = err
                    .message
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect();
                Err(Error {
                    status,
                    message: String::from_utf8_lossy(&bytes).into_owned(),
                })
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// Calls `f` with a fresh kgrt_error_t and turns its status into a Result.
pub(crate) fn call(f: impl FnOnce(*mut sys::kgrt_error_t) -> sys::kgrt_status_t) -> Result<()> {
    let mut err = sys::kgrt_error_new();
    let st = f(&mut err);
    Error::check(st, &err)
}
